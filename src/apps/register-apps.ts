import { createAppApi, type AppServices } from './app-api.js';
import type { LoadedApp } from './load-apps.js';

/**
 * Calls each app's `register` in site_config.json order, after the built-ins registered theirs, so
 * an app's hooks run after the built-in ones and it can add to built-in DocTypes. An error thrown
 * while registering fails the site's opening, named by app.
 */
export async function registerApps(apps: readonly LoadedApp[], services: AppServices): Promise<void> {
  for (const app of apps) {
    if (!app.register) continue;
    try {
      await app.register(createAppApi(app.name, services));
    } catch (err) {
      const message = (err as Error).message ?? String(err);
      // createAppApi's own errors already name the app.
      if (message.startsWith(`App "${app.name}"`)) throw err;
      throw new Error(`App "${app.name}" (${app.file}): register failed: ${message}`, { cause: err });
    }
  }
}
