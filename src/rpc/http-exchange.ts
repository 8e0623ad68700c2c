import type { Readable } from 'node:stream';

/** A file a method answers with instead of a JSON body (docs/import-export.md "Export"). */
export interface Download {
  /** The file name the client saves it under (any Unicode; sent in both `filename` and `filename*`). */
  readonly fileName: string;
  readonly contentType: string;
  /** The bytes, read only as fast as the client takes them. */
  readonly body: Readable;
}

/** HTTP verbs a method may allow. */
export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** What a method sees of the HTTP exchange: enough for login and logout, nothing of Fastify. */
export interface HttpExchange {
  /** The verb of the request; document methods check it against the verbs they allow. */
  readonly verb: HttpVerb;
  /** The API conventions of the URL: `/api/v2/…` answers in v2 form (bodies keep nulls, `messages`). */
  readonly apiVersion: 'v1' | 'v2';
  readonly ip: string;
  readonly userAgent: string | undefined;
  /** The session id the request came with, if it had a live session. */
  readonly sid: string | undefined;
  readonly secure: boolean;
  /** The origin the request reached (scheme, host, port as the client named them), for URLs that lead back here. */
  readonly origin: string;
  /** What follows the method path in `/api/method/<path>/<tail>` (social login's `custom/<provider>`); '' when nothing. */
  readonly pathTail: string;
  /** A cookie the request carried. */
  cookie(name: string): string | undefined;
  setCookie(name: string, value: string, options: { httpOnly?: boolean; maxAge?: number }): void;
  clearCookie(name: string): void;
  /** Answers 302 to `location` (a browser flow: social login's start and callback); the JSON body goes along. */
  redirect(location: string): void;
  /** Extra top-level keys of the response body (login adds `home_page`, `full_name`). */
  extraBody: Record<string, unknown>;
  /**
   * Answers with a file as an attachment instead of JSON, and resolves once it was written or the
   * client went away. Call it inside the unit of work whose cursor feeds `body`.
   */
  sendDownload(download: Download): Promise<void>;
}
