import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

// The admin UI (docs/admin-ui.md) builds into dist/ui, which fw serves at /app and /assets.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [vue()],
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // No inline <script> or data: module preload polyfill: the page's CSP allows only same-origin scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    // scripts/build.mjs reports the step's time; Rolldown's advice about slow plugins (printed whenever the machine
    // is busy) would only be noise in every `npm ci`.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
