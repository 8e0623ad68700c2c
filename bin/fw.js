#!/usr/bin/env -S node --max-semi-space-size=4
// The shebang gives `fw` (npm's bin link, npx, ./bin/fw.js) the node flags of `npm start`: a small
// young generation keeps a busy server's memory near npm start's (docs/benchmarks.md "Young
// generation"). `node bin/fw.js serve` bypasses the shebang, so serve starts itself again with them.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MEMORY_FLAGS = ['--max-semi-space-size=4'];
const args = process.argv.slice(2);
const flagged = process.execArgv.some((a) => a.startsWith('--max-semi-space-size'));

if (args[0] === 'serve' && !flagged) {
  const child = spawn(process.execPath, [...process.execArgv, ...MEMORY_FLAGS, fileURLToPath(import.meta.url), ...args], { stdio: 'inherit' });
  // The server handles these itself (a graceful stop); this process only passes them on and waits.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(args);
}
