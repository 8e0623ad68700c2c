#!/usr/bin/env node
// `fw serve` sizes V8's heap for a long-running server in this process, however it is started
// (`npm start`, `node bin/fw.js serve`, `fw serve`, `--workers`: cluster workers run this file
// too), before the heap has grown (docs/benchmarks.md "Young generation"). Flags V8 reads only
// when the heap is set up (`--max-semi-space-size`) do nothing here, and a second process that
// starts node again with them would cost ~40 MB and leave an orphan when killed; these two V8
// reads again at every young-generation grow and every full collection, so they take effect.
import { setFlagsFromString } from 'node:v8';

const args = process.argv.slice(2);

/** The settings, each skipped when the user chose the same thing through node's own flags. */
const SERVE_HEAP_FLAGS = [
  // The young generation keeps its first size (1 MB semi-spaces) instead of growing to 16 MB.
  { flag: '--semi-space-growth-factor=1', unless: ['--max-semi-space-size', '--min-semi-space-size', '--semi-space-growth-factor'] },
  // A full collection is due when the old generation has grown by half, not up to 4 times.
  { flag: '--heap-growing-percent=50', unless: ['--heap-growing-percent'] },
];

if (args[0] === 'serve') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((a) => a.replaceAll('_', '-'));
  for (const { flag, unless } of SERVE_HEAP_FLAGS) {
    if (!given.some((a) => unless.some((u) => a.startsWith(u)))) setFlagsFromString(flag);
  }
}

const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(args);
