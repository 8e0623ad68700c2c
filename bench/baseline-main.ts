// Entry of the baseline server process: `node --import tsx bench/baseline-main.ts <db-url> <port>`.
import { buildBaselineApp } from './baseline-server.js';
import { openBaselineStore } from './baseline-store.js';

const [url, portText] = process.argv.slice(2);
if (!url || !portText) {
  console.error('usage: baseline-main.ts <sqlite:file | postgres://...> <port>');
  process.exit(2);
}
const store = await openBaselineStore(url);
const app = buildBaselineApp(store);
await app.listen({ host: '127.0.0.1', port: Number(portText) });
console.log(`baseline (${store.engine}) listening on ${portText}`);

const stop = async () => {
  await app.close();
  await store.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
