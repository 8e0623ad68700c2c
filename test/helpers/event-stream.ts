import { request, type IncomingMessage } from 'node:http';

/** One Server-Sent Event as a client parses it. */
export interface StreamEvent {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: any;
}

/** An open `text/event-stream` response read with a plain HTTP client, as `curl -N` would. */
export interface EventStream {
  readonly response: IncomingMessage;
  readonly events: StreamEvent[];
  /** Comment lines (`: heartbeat`) seen so far. */
  readonly comments: string[];
  next(event: string, match?: (data: any) => boolean, timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves when the server ends the stream. */
  ended(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** The answer of a request that did not open a stream: status and JSON body. */
export interface Refused {
  readonly status: number;
  readonly body: any;
}

/** Opens `url` with `headers` (from `localAddress` when given); resolves with the stream on 200, else with the status and body. */
export function openEventStream(url: string, headers: Record<string, string> = {}, options: { localAddress?: string } = {}): Promise<EventStream | Refused> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { accept: 'text/event-stream', ...headers }, ...(options.localAddress ? { localAddress: options.localAddress } : {}) },
      (res) => {
        if (res.statusCode !== 200) {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
          return;
        }
        const events: StreamEvent[] = [];
        const comments: string[] = [];
        const waiters = new Set<() => void>();
        let rest = '';
        let ended = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          rest += chunk;
          let cut: number;
          while ((cut = rest.indexOf('\n\n')) >= 0) {
            const block = rest.slice(0, cut);
            rest = rest.slice(cut + 2);
            let id: string | undefined;
            let event = 'message';
            const data: string[] = [];
            let isEvent = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else if (line.startsWith('id: ')) id = line.slice(4);
              else if (line.startsWith('event: ')) (event = line.slice(7)), (isEvent = true);
              else if (line.startsWith('data: ')) data.push(line.slice(6)), (isEvent = true);
            }
            if (isEvent) events.push({ id, event, data: data.length ? JSON.parse(data.join('\n')) : undefined });
          }
          for (const wake of waiters) wake();
        });
        const finish = () => {
          ended = true;
          for (const wake of waiters) wake();
        };
        res.on('end', finish);
        res.on('close', finish);
        const wait = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
          new Promise<T>((ok, fail) => {
            const tryNow = () => {
              const found = check();
              if (found !== undefined) {
                done();
                ok(found);
              } else if (ended) {
                done();
                fail(new Error(`stream ended before ${what}; got ${JSON.stringify(events)}`));
              }
            };
            const timer = setTimeout(() => {
              done();
              fail(new Error(`no ${what} within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
            }, timeoutMs);
            const done = () => {
              clearTimeout(timer);
              waiters.delete(tryNow);
            };
            waiters.add(tryNow);
            tryNow();
          });
        resolve({
          response: res,
          events,
          comments,
          next: (event, match = () => true, timeoutMs = 10_000) => wait(() => events.find((e) => e.event === event && match(e.data)), event, timeoutMs),
          ended: (timeoutMs = 10_000) =>
            new Promise<void>((ok, fail) => {
              if (ended) return ok();
              const timer = setTimeout(() => fail(new Error('stream still open')), timeoutMs);
              waiters.add(() => {
                if (!ended) return;
                clearTimeout(timer);
                ok();
              });
            }),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Narrows an openEventStream answer to a stream, failing with the refusal otherwise. */
export function streamOf(answer: EventStream | Refused): EventStream {
  if ('events' in answer) return answer;
  throw new Error(`expected an event stream, got ${answer.status} ${JSON.stringify(answer.body)}`);
}
