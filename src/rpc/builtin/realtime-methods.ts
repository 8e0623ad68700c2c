import type { MethodCall, MethodRegistry } from '../method-registry.js';

/** `fw.realtime.get_user_info`: who the caller is, for the realtime server's handshake (Guest included). */
async function getUserInfo({ ctx }: MethodCall): Promise<{ user: string; user_type: string }> {
  const { principal } = ctx;
  return { user: principal.user, user_type: principal.isGuest ? 'Guest' : principal.userType };
}

/** Methods the realtime server calls: get_user_info. */
export function registerRealtimeMethods(methods: MethodRegistry): void {
  methods.register('fw.realtime.get_user_info', getUserInfo, { allowGuest: true });
}
