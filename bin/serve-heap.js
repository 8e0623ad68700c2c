// `fw serve` sizes V8's heap for a long-running server in its own process, however it is started
// (`npm start`, `node bin/fw.js serve`, `fw serve`, `--workers`: cluster workers run bin/fw.js
// too), before the heap has grown (docs/benchmarks.md "Memory"). Imported first by bin/fw.js.
// Flags V8 reads only when it sets the heap up (`--max-semi-space-size`) do nothing once node runs,
// and starting node again with them would cost a second process (~40 MB, orphaned when the first
// is killed); V8 reads these two again at every young-generation grow and every full collection.
import { setFlagsFromString } from 'node:v8';

/** The settings, each skipped when the user chose the same thing through node's own flags. */
const SERVE_HEAP_FLAGS = [
  // The young generation keeps its first size (1 MB semi-spaces) instead of growing to 16 MB.
  { flag: '--semi-space-growth-factor=1', unless: ['--max-semi-space-size', '--min-semi-space-size', '--semi-space-growth-factor'] },
  // A full collection is due when the old generation has grown by a quarter, not by up to 4 times:
  // 50 concurrent insert_many calls of 100 documents peaked at 152 MB with a half, 139 MB with a quarter.
  { flag: '--heap-growing-percent=25', unless: ['--heap-growing-percent'] },
];

if (process.argv[2] === 'serve') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((a) => a.replaceAll('_', '-'));
  for (const { flag, unless } of SERVE_HEAP_FLAGS) {
    if (!given.some((a) => unless.some((u) => a.startsWith(u)))) setFlagsFromString(flag);
  }
}
