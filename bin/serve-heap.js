// `fw serve` sizes V8's heap for a long-running server in its own process, however it is started
// (`npm start`, `node bin/fw.js serve`, `fw serve`, `--workers`: cluster workers run bin/fw.js
// too), before the heap has grown (docs/benchmarks.md "Young generation and heap growth").
// Imported first by bin/fw.js. Flags V8 reads only when it sets the heap up
// (`--max-semi-space-size`) do nothing once node runs, and starting node again with them would
// cost a second process (~40 MB, orphaned when the first is killed); V8 reads the two below again
// at every young-generation grow and every full collection.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/**
 * The young generation (both semi-spaces) grows to this and no further: 8 MB by default, or
 * FW_YOUNG_GENERATION_MB (1 to 32). Too small, and each scavenge copies the objects of every
 * request still in flight (their answers not yet written) for little garbage freed; by default it
 * grows to 32 MB, which a server's resident memory pays for in full.
 */
const YOUNG_GENERATION_BYTES = youngGenerationMb() * 1024 * 1024;

function youngGenerationMb() {
  const given = Number(process.env.FW_YOUNG_GENERATION_MB);
  return Number.isInteger(given) && given >= 1 && given <= 32 ? given : 8;
}

/** How often a young generation at its cap is looked at again, in case V8 shrank it (when idle). */
const AT_CAP_CHECK_MS = 2000;

/**
 * V8 doubles the young generation (at a scavenge where much survived) by the growth factor; the
 * factor is 2 while doubling stays within the cap, then 1. Below the cap every collection is
 * checked (a `gc` observer runs a moment after it, so one long stretch of JavaScript could grow it a
 * step past the cap; requests are far shorter). At the cap the observer is let go: Node builds an
 * entry for each collection it reports, about 1% of a busy server's CPU, for nothing to change.
 * A timer then looks again now and then, since V8 may shrink an idle young generation.
 */
function capYoungGeneration() {
  let factor = 0;
  let observer;
  const roomToDouble = () => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    return young !== undefined && young.space_size * 2 <= YOUNG_GENERATION_BYTES;
  };
  const setFactor = (next) => {
    if (next === factor) return;
    setFlagsFromString(`--semi-space-growth-factor=${next}`);
    factor = next;
  };
  const steer = () => {
    if (roomToDouble()) return setFactor(2);
    setFactor(1);
    observer?.disconnect();
    observer = undefined;
  };
  const watch = () => {
    if (observer) return;
    observer = new PerformanceObserver(steer);
    observer.observe({ entryTypes: ['gc'] });
  };
  steer();
  if (factor === 2) watch();
  setInterval(() => {
    if (observer || !roomToDouble()) return;
    setFactor(2);
    watch();
  }, AT_CAP_CHECK_MS).unref();
}

if (process.argv[2] === 'serve') {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((a) => a.replaceAll('_', '-'));
  const userSet = (...flags) => given.some((a) => flags.some((f) => a.startsWith(f)));
  if (!userSet('--max-semi-space-size', '--min-semi-space-size', '--semi-space-growth-factor')) capYoungGeneration();
  // A full collection is due when the old generation has grown by a quarter, not by up to 4 times:
  // 50 concurrent insert_many calls of 100 documents peaked at 152 MB with a half, 139 MB with a quarter.
  if (!userSet('--heap-growing-percent')) setFlagsFromString('--heap-growing-percent=25');
}
