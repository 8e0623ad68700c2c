import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Returned by a step that sent the answer itself (a CORS preflight): the request ends there. */
export const ANSWERED = Symbol('answered');

/**
 * What a step makes of a request: nothing to say (go on), an error (the request is answered
 * with it), ANSWERED, or a promise of one of those when the step must wait (reading a body,
 * asking for fresh settings).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an async step that falls off its end resolves to void, meaning "go on"
export type StepOutcome = undefined | Error | typeof ANSWERED | Promise<void | typeof ANSWERED>;

/** One thing the app does to every request at one phase; most return at once, having nothing to do. */
export type RequestStep = (req: FastifyRequest, reply: FastifyReply) => StepOutcome;

/**
 * Everything the app does to every request, phase by phase, in order (Fastify's request
 * lifecycle; docs/architecture.md "A request"). A route's handler runs between preHandler
 * and onSend. A step that is off by configuration is left out (undefined).
 */
export interface RequestPipeline {
  /** Headers read, body not yet: refusals that need only the request line and headers, preflights. */
  readonly onRequest: ReadonlyArray<RequestStep | undefined>;
  /** Bodies Fastify does not parse itself (multipart uploads, JSON sent with GET). */
  readonly preValidation: ReadonlyArray<RequestStep | undefined>;
  /** The body read, the handler next: checks of the arguments as a whole. */
  readonly preHandler: ReadonlyArray<RequestStep | undefined>;
  /** The answer about to go out (body serialized): headers every answer carries. */
  readonly onSend: ReadonlyArray<RequestStep | undefined>;
  /** The answer sent, or the client gone: counting and cleaning up. */
  readonly onResponse: ReadonlyArray<RequestStep | undefined>;
}

/** Runs `steps` from `from` on, calling `done` once they all went on, or with the first error. */
function runSteps(steps: readonly RequestStep[], from: number, req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void {
  for (let i = from; i < steps.length; i++) {
    const outcome = steps[i]!(req, reply);
    if (outcome === undefined) continue;
    if (outcome === ANSWERED) return;
    if (outcome instanceof Error) {
      done(outcome);
      return;
    }
    outcome.then((after) => {
      if (after !== ANSWERED) runSteps(steps, i + 1, req, reply, done);
    }, done);
    return;
  }
  done();
}

/**
 * Registers the pipeline as one hook per phase. Fastify pays for every hook of every request
 * (a phase without hooks is skipped altogether), and nearly every step of ours returns at once,
 * so one hook running a list costs less than a hook each (docs/benchmarks.md). The hooks are
 * callback style: an async hook costs a promise and a microtask even when it has nothing to do.
 */
export function registerRequestPipeline(app: FastifyInstance, pipeline: RequestPipeline): void {
  const present = (steps: ReadonlyArray<RequestStep | undefined>) => steps.filter((s): s is RequestStep => s !== undefined);
  for (const phase of ['onRequest', 'preValidation', 'preHandler', 'onResponse'] as const) {
    const steps = present(pipeline[phase]);
    if (steps.length === 0) continue;
    app.addHook(phase, (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => runSteps(steps, 0, req, reply, done));
  }
  const onSend = present(pipeline.onSend);
  if (onSend.length === 0) return;
  // No step changes the payload: it goes on as it came.
  app.addHook('onSend', (req, reply, payload, done) => runSteps(onSend, 0, req, reply, (err) => (err ? done(err) : done(null, payload))));
}
