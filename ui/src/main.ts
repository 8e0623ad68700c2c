import { createApp } from 'vue';
import App from './App.vue';
import { loadCsrfToken } from './lib/api';
import { startRealtime } from './lib/realtime-socket';
import { loadBoot, session } from './lib/session';
import { router } from './router';
import './styles.css';

// Every page but /login needs the boot; without a session the user goes to /login and comes back.
router.beforeEach(async (to) => {
  if (to.meta.guest || session.boot) return true;
  try {
    // No session (the token answer is null): straight to /login, with no request that would fail.
    if ((await loadCsrfToken()) === null) return { path: '/login', query: { redirect: to.fullPath } };
    const boot = await loadBoot();
    void startRealtime(boot.site_name ?? null).catch(() => undefined);
    return true;
  } catch {
    return { path: '/login', query: { redirect: to.fullPath } };
  }
});

createApp(App).use(router).mount('#app');
