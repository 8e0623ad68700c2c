import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { SourceRow } from './cells.js';
import { detectDelimiter, detectEncoding } from './text-sniff.js';

/** How far into the text the delimiter is looked for. */
const SNIFF_CHARS = 64 * 1024;

/** The file's text, decoded chunk by chunk; a UTF-8 BOM is dropped. */
async function* decodedText(bytes: Readable, encoding: 'utf-8' | 'latin1'): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding === 'utf-8' ? 'utf-8' : 'windows-1252');
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk as Buffer, { stream: true });
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** Gathers the first characters of the text for sniffing, then hands on all of it. */
async function sniffed(text: AsyncGenerator<string>): Promise<{ start: string; all: AsyncGenerator<string> }> {
  const head: string[] = [];
  let length = 0;
  let done = false;
  while (length < SNIFF_CHARS) {
    const next = await text.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  async function* all(): AsyncGenerator<string> {
    yield* head;
    if (!done) yield* text;
  }
  return { start: head.join(''), all: all() };
}

/** Resolves when `stream` drains or closes, leaving no listener behind. */
async function drainedOrClosed(stream: NodeJS.EventEmitter): Promise<void> {
  const stop = new AbortController();
  const waits = [once(stream, 'drain', { signal: stop.signal }), once(stream, 'close', { signal: stop.signal })];
  // The wait that loses is aborted below; its rejection is expected.
  for (const w of waits) w.catch(() => {});
  try {
    await Promise.race(waits);
  } finally {
    stop.abort();
  }
}

/**
 * The records of a CSV file, streamed: the encoding is found by one pass over the bytes
 * (`open` is called twice), the delimiter from the header; memory stays bounded by a record.
 */
export async function* csvRows(open: () => Promise<Readable>): AsyncGenerator<SourceRow> {
  const encoding = await detectEncoding(await open());
  const bytes = await open();
  const { start, all } = await sniffed(decodedText(bytes, encoding));
  const parser = parse({ delimiter: detectDelimiter(start), relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true });
  // The text is written into the parser by hand rather than piped: a reader that stops early
  // destroys the file stream, and no stream is left to emit an error nobody listens to (which
  // would end the process). A failure reaches the reader through the parser.
  const feeding = (async () => {
    try {
      for await (const text of all) {
        if (parser.destroyed) return;
        if (!parser.write(text)) await drainedOrClosed(parser);
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  try {
    let number = 0;
    for await (const record of parser as AsyncIterable<string[]>) {
      number += 1;
      yield { number, cells: record };
    }
  } finally {
    parser.destroy();
    bytes.destroy();
    await feeding;
  }
}
