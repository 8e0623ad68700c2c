import { createApp } from 'vue';
import App from './App.vue';
import { api, loadCsrfToken } from './lib/api';
import { startRealtime } from './lib/realtime-socket';
import { loadBoot, session } from './lib/session';
import { router } from './router';
import './styles.css';

/** The caller's user name, Guest without a session (`fw.realtime.get_user_info` answers Guests). */
async function whoAmI(): Promise<string> {
  const info = await api.get<{ user?: string }>('fw.realtime.get_user_info');
  return String(info?.user ?? 'Guest');
}

// Every page but /login needs the boot; without a session the user goes to /login and comes back.
router.beforeEach(async (to) => {
  if (to.meta.guest || session.boot) return true;
  try {
    // Who is calling (answered to Guests too): without a session, straight to /login with no request
    // that would fail (docs/admin-ui.md "Navigation").
    if ((await whoAmI()) === 'Guest') return { path: '/login', query: { redirect: to.fullPath } };
    const [boot] = await Promise.all([loadBoot(), loadCsrfToken()]);
    void startRealtime(boot.site_name ?? null).catch(() => undefined);
    return true;
  } catch {
    return { path: '/login', query: { redirect: to.fullPath } };
  }
});

createApp(App).use(router).mount('#app');
