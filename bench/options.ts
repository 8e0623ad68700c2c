import { parseArgs } from 'node:util';
import type { FwEntryMode } from './fw-entry.js';
import { DEFAULT_PG_URL } from './postgres-admin.js';
import { SCENARIOS } from './scenarios.js';

/** The parts `--only` can pick. */
const ONLY = ['http', 'jobs', 'data', 'mail', 'ui', 'subsystems'] as const;
type Only = (typeof ONLY)[number];

/** How `--start` can start fw (bench/fw-process.ts). */
export const START_MODES = ['bin', 'npm', 'workers1'] as const;
export type StartMode = (typeof START_MODES)[number];

/** Everything `npm run bench` can be told. */
export interface BenchOptions {
  readonly quick: boolean;
  readonly sizes: number[];
  readonly dialects: ('sqlite' | 'postgres')[];
  /** Whether PostgreSQL was asked for by name (then unreachable is an error, not a note). */
  readonly postgresRequired: boolean;
  readonly workers: number[];
  /** The ways fw is started, each a run of its own (default: `node bin/fw.js serve` only). */
  readonly start: StartMode[];
  readonly sliceSeconds: number;
  readonly warmupSeconds: number;
  readonly pairs: number;
  /** Concurrent connections; each count is a run of its own. */
  readonly connections: number[];
  readonly streamRepeats: number;
  readonly json: string | undefined;
  readonly docs: boolean;
  readonly fwEntry: FwEntryMode;
  readonly fwLogLevel: string;
  readonly pgUrl: string;
  /** `http`: only the HTTP scenarios; `jobs`: only jobs and webhooks (bench/jobs-bench.ts); `data`: only export and search (bench/data-bench.ts); `mail`: only mail delivery and notifications (bench/mail-bench.ts); `ui`: only the admin UI's 10,000-row list in chromium (bench/ui-bench.ts); `subsystems`: what configured subsystems cost a write (bench/subsystems-bench.ts); default all. */
  readonly only: Only | undefined;
  /** The HTTP scenarios to run, by id (`--scenarios get-one,list`); all when undefined. */
  readonly scenarios: readonly string[] | undefined;
}

/** Usage text printed for `--help` and for a bad flag. */
export const USAGE = `npm run bench -- [options]
  --quick                    a few seconds per scenario (CI); figures are not meaningful
  --sizes 1000,10000,100000  table sizes to measure at (quick: 1000)
  --dialect sqlite|postgres|all   (all: PostgreSQL joins when reachable)
  --workers 1|2|1,2          fw serve --workers (1: one process)
  --start bin,npm,workers1   how fw is started, each a run of its own: node bin/fw.js serve (bin, the default),
                             npm start (its fw process is measured), node bin/fw.js serve --workers 1
  --duration <s>             seconds per measured slice (3; quick 0.5)
  --warmup <s>               warm-up seconds per server and scenario (2; quick 0.25)
  --pairs <n>                fw/baseline slice pairs per scenario (4; quick 2)
  --connections 10,50        concurrent connections; each count is a run of its own (10,50; quick 10)
  --stream-repeats <n>       unlimited-list requests per server (3; quick 1)
  --json <file>              where to write the JSON (bench/results/bench-<time>.json)
  --no-docs                  leave docs/benchmarks.md alone
  --fw auto|dist|src         run fw from dist/ (rebuilt when stale) or from src/ through tsx (auto)
  --fw-log-level <level>     FW_LOG_LEVEL of the fw server (warn)
  --pg-url <url>             PostgreSQL server for throwaway databases (FW_BENCH_PG_URL or ${DEFAULT_PG_URL})
  --scenarios <ids>          only these HTTP scenarios: get-one, list, list-count, insert, update, insert-many
  --only http|jobs|data|mail|ui|subsystems   only the HTTP scenarios, jobs/webhooks throughput, export/search, mail, the admin UI
                             list in chromium, or what configured subsystems cost a write (default all)
  --realtime [--sockets 1000] [--steps 5,10,20,40,80,160] [--rate N] [--seconds 5] [--documents 100]
             [--client-processes 4] [--client lean|socketio] [--all-steps] [--cpu-prof DIR]
                             instead: the realtime scenario, clients in their own processes on the other core
                             (deliveries/s held with p99 < 50 ms, server CPU per delivery, memory per socket)
  --files [--mb 16] [--count 4] [--big-mb 1024] [--seconds 5] [--backend local|s3]
                             instead: file upload/download MB/s, private GET req/s and RSS during a big upload,
                             on the local backend and on s3rver`;

function positiveList(text: string, flag: string): number[] {
  const values = text.split(',').map((s) => Number(s.trim()));
  if (values.length === 0 || values.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new Error(`${flag} takes whole numbers above 0, comma-separated; got "${text}"`);
  }
  return values;
}

function positive(text: string | undefined, fallback: number, flag: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag} takes a number above 0; got "${text}"`);
  return value;
}

/** Parses the command line; throws with a message naming the bad flag. */
export function parseBenchOptions(argv: string[]): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      quick: { type: 'boolean' },
      sizes: { type: 'string' },
      dialect: { type: 'string' },
      workers: { type: 'string' },
      start: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      pairs: { type: 'string' },
      connections: { type: 'string' },
      'stream-repeats': { type: 'string' },
      json: { type: 'string' },
      'no-docs': { type: 'boolean' },
      fw: { type: 'string' },
      'fw-log-level': { type: 'string' },
      'pg-url': { type: 'string' },
      only: { type: 'string' },
      scenarios: { type: 'string' },
    },
  });
  if (values.help) return 'help';
  const quick = values.quick ?? false;
  const dialect = values.dialect ?? 'all';
  if (!['sqlite', 'postgres', 'all'].includes(dialect)) throw new Error(`--dialect is sqlite, postgres or all; got "${dialect}"`);
  const fwEntry = values.fw ?? 'auto';
  if (!['auto', 'dist', 'src'].includes(fwEntry)) throw new Error(`--fw is auto, dist or src; got "${fwEntry}"`);
  if (values.only !== undefined && !(ONLY as readonly string[]).includes(values.only)) {
    throw new Error(`--only is one of ${ONLY.join(', ')}; got "${values.only}"`);
  }
  const scenarios = values.scenarios?.split(',').map((s) => s.trim());
  const unknown = scenarios?.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown?.length) throw new Error(`--scenarios takes ${SCENARIOS.map((s) => s.id).join(', ')}; got "${unknown.join(', ')}"`);
  const start = (values.start ?? 'bin').split(',').map((s) => s.trim());
  const badStart = start.find((s) => !(START_MODES as readonly string[]).includes(s));
  if (badStart !== undefined) throw new Error(`--start takes ${START_MODES.join(', ')}, comma-separated; got "${badStart}"`);
  const sizes = values.sizes ? positiveList(values.sizes, '--sizes') : quick ? [1000] : [1000, 10_000, 100_000];
  return {
    quick,
    sizes: [...new Set(sizes)].sort((a, b) => a - b),
    dialects: dialect === 'all' ? ['sqlite', 'postgres'] : [dialect as 'sqlite' | 'postgres'],
    postgresRequired: dialect === 'postgres',
    workers: values.workers ? [...new Set(positiveList(values.workers, '--workers'))] : [1],
    start: [...new Set(start)] as StartMode[],
    sliceSeconds: positive(values.duration, quick ? 0.5 : 3, '--duration'),
    warmupSeconds: positive(values.warmup, quick ? 0.25 : 2, '--warmup'),
    pairs: Math.round(positive(values.pairs, quick ? 2 : 4, '--pairs')),
    connections: values.connections ? [...new Set(positiveList(values.connections, '--connections'))] : quick ? [10] : [10, 50],
    streamRepeats: Math.round(positive(values['stream-repeats'], quick ? 1 : 3, '--stream-repeats')),
    json: values.json,
    docs: !values['no-docs'],
    fwEntry: fwEntry as FwEntryMode,
    fwLogLevel: values['fw-log-level'] ?? 'warn',
    pgUrl: values['pg-url'] ?? process.env.FW_BENCH_PG_URL ?? DEFAULT_PG_URL,
    only: values.only as Only | undefined,
    scenarios,
  };
}
