/** The part of autocannon 9's programmatic interface the load worker uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  /** One request of a sequence; `setupRequest` may rewrite it before each send. */
  export interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (req: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  }

  /** Options of a run. */
  export interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    pipelining?: number;
    /** Milliseconds between samples; a run also ends only on a sample tick. */
    sampleInt?: number;
    headers?: Record<string, string>;
    requests?: AutocannonRequest[];
  }

  /** Summary of a run (the fields the bench reads). */
  export interface AutocannonResult {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
    requests: { total: number; sent: number };
    latency: { p50: number; p99: number };
  }

  /** A running load test: an event emitter that is also a promise of its result. */
  export interface AutocannonInstance extends EventEmitter, PromiseLike<AutocannonResult> {
    stop(): void;
  }

  function autocannon(options: AutocannonOptions): AutocannonInstance;
  export default autocannon;
}
