/*
 * A thin client for fw's public REST API, following the conventions frappe-ui's request helpers
 * use: same-origin cookie session, `X-Frappe-CSRF-Token` on writes, JSON bodies, errors decoded
 * from `_server_messages`. No credential is ever stored by the page: the session cookie is HttpOnly.
 */

export type Doc = Record<string, unknown> & { name?: string; doctype?: string; modified?: string; docstatus?: number };
export type Filter = [string, string, unknown];

/** One entry of `_server_messages`. */
export interface ServerMessage {
  message: string;
  title?: string;
  indicator?: string;
}

/** A refused request: status, the server's `exc_type` and its messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly excType: string,
    readonly messages: ServerMessage[],
  ) {
    super(messages.map((m) => m.message).join('\n') || `${excType || 'Error'} (${status})`);
  }
}

/** The session's CSRF token, kept in memory only (docs/admin-ui.md, "Security"). */
let csrf = '';
function csrfToken(): string {
  return csrf;
}

/**
 * Asks fw for the session's CSRF token (`get_csrf_token`, issued on first call) before anything
 * is written; from then on the session's writes must carry it. A server without the method
 * answers 404 and the UI sends none (undefined).
 */
export async function loadCsrfToken(): Promise<string | null | undefined> {
  try {
    const token = (await send('GET', '/api/method/frappe.auth.get_csrf_token')).message;
    csrf = typeof token === 'string' ? token : '';
    return typeof token === 'string' ? token : null;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    return undefined;
  }
}

/** Decodes `_server_messages`: a JSON list of JSON-encoded message objects. */
export function serverMessages(body: Record<string, unknown>): ServerMessage[] {
  const raw = body._server_messages;
  const out: ServerMessage[] = [];
  if (typeof raw === 'string') {
    try {
      for (const entry of JSON.parse(raw) as unknown[]) {
        const parsed = typeof entry === 'string' ? (JSON.parse(entry) as ServerMessage) : (entry as ServerMessage);
        if (parsed && typeof parsed.message === 'string') out.push({ ...parsed, message: stripTags(parsed.message) });
      }
    } catch {
      // A message that is not JSON is shown as the body's exception line below.
    }
  }
  if (out.length === 0 && typeof body.message === 'string' && body.exc_type) out.push({ message: body.message });
  if (out.length === 0 && typeof body.exception === 'string') out.push({ message: body.exception.replace(/^[\w.]+: /, '') });
  return out;
}

/** Messages may carry simple markup (`<b>`); the UI shows them as text. */
function stripTags(html: string): string {
  return html.replace(/<[^>]*>/g, '');
}

/** Listeners told when a request finds the session gone (the shell sends the user to /login). */
const sessionLost = new Set<() => void>();
export function onSessionLost(fn: () => void): void {
  sessionLost.add(fn);
}

async function send(verb: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (verb !== 'GET') {
    const token = csrfToken();
    if (token) headers['X-Frappe-CSRF-Token'] = token;
  }
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(url, { method: verb, headers, body: payload, credentials: 'same-origin' });
  let json: Record<string, unknown> = {};
  try {
    json = (await res.json()) as Record<string, unknown>;
  } catch {
    // Non-JSON answers (a proxy's error page) become an ApiError with the status alone.
  }
  if (!res.ok) {
    const error = new ApiError(res.status, String(json.exc_type ?? ''), serverMessages(json));
    if (res.status === 403 && /Login required/.test(error.message)) sessionLost.forEach((fn) => fn());
    throw error;
  }
  return json;
}

/** A file answered by a method: its bytes and the name from `Content-Disposition`. */
export interface DownloadedFile {
  blob: Blob;
  filename: string;
}

/**
 * The file name of a `Content-Disposition: attachment` header: the exact UTF-8 `filename*` when
 * present (RFC 5987), else the plain `filename` (docs/import-export.md "Export").
 */
export function attachmentName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // A malformed escape falls back to the plain name below.
    }
  }
  const plain = /filename="([^"]*)"/i.exec(header) ?? /filename=([^;]+)/i.exec(header);
  return plain ? plain[1]!.trim() : fallback;
}

/**
 * POSTs a method that answers a file (with the CSRF token, like every write of the page) and
 * returns it whole; a refusal arrives as JSON before the first byte and becomes an ApiError.
 */
async function download(method: string, args: Record<string, unknown>, fallbackName: string): Promise<DownloadedFile> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const token = csrfToken();
  if (token) headers['X-Frappe-CSRF-Token'] = token;
  const res = await fetch(`/api/method/${method}`, { method: 'POST', headers, body: JSON.stringify(args), credentials: 'same-origin' });
  if (!res.ok) {
    let json: Record<string, unknown> = {};
    try {
      json = (await res.json()) as Record<string, unknown>;
    } catch {
      // Not JSON: the status alone is reported.
    }
    throw new ApiError(res.status, String(json.exc_type ?? ''), serverMessages(json));
  }
  return { blob: await res.blob(), filename: attachmentName(res.headers.get('Content-Disposition'), fallbackName) };
}

/** Query string of list parameters: objects and arrays as JSON, as the API expects. */
function query(params: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    q.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

const enc = encodeURIComponent;

export interface ListParams {
  fields?: string[];
  filters?: Filter[];
  or_filters?: Filter[];
  order_by?: string;
  limit_start?: number;
  limit_page_length?: number;
  parent?: string;
}

export const api = {
  /** GET a whitelisted method; the answer's `message`. */
  async get<T = unknown>(method: string, args: Record<string, unknown> = {}): Promise<T> {
    return (await send('GET', `/api/method/${method}${query(args)}`)).message as T;
  },
  /** GET a method and return the whole body (for methods answering beside `message`, like getdoctype). */
  async getBody(method: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return send('GET', `/api/method/${method}${query(args)}`);
  },
  /** POST a method and return the whole body (for the messages beside `message`, and methods answering their own JSON, like the OAuth `approve`). */
  async postBody(method: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    return send('POST', `/api/method/${method}`, args);
  },
  /** POST a whitelisted method; the answer's `message`. */
  async post<T = unknown>(method: string, args: Record<string, unknown> = {}): Promise<T> {
    return (await send('POST', `/api/method/${method}`, args)).message as T;
  },
  async list<T = Doc>(doctype: string, params: ListParams = {}): Promise<T[]> {
    return (await send('GET', `/api/resource/${enc(doctype)}${query({ ...params })}`)).data as T[];
  },
  async count(doctype: string, filters: Filter[] = [], or_filters?: Filter[]): Promise<number> {
    return Number(await api.get('frappe.client.get_count', { doctype, filters, ...(or_filters?.length ? { or_filters } : {}) }));
  },
  async getDoc(doctype: string, name: string): Promise<Doc> {
    return (await send('GET', `/api/resource/${enc(doctype)}/${enc(name)}`)).data as Doc;
  },
  async insert(doctype: string, doc: Doc): Promise<Doc> {
    return (await send('POST', `/api/resource/${enc(doctype)}`, doc)).data as Doc;
  },
  async save(doctype: string, name: string, doc: Doc): Promise<Doc> {
    return (await send('PUT', `/api/resource/${enc(doctype)}/${enc(name)}`, doc)).data as Doc;
  },
  async remove(doctype: string, name: string): Promise<void> {
    await send('DELETE', `/api/resource/${enc(doctype)}/${enc(name)}`);
  },
  async upload(file: File, options: { doctype?: string; docname?: string; fieldname?: string; isPrivate?: boolean }): Promise<Doc> {
    const form = new FormData();
    form.set('file', file, file.name);
    form.set('is_private', options.isPrivate ? '1' : '0');
    if (options.doctype) form.set('doctype', options.doctype);
    if (options.docname) form.set('docname', options.docname);
    if (options.fieldname) form.set('fieldname', options.fieldname);
    return (await send('POST', '/api/method/upload_file', form)).message as Doc;
  },
  /**
   * `upload_file` through XMLHttpRequest, the one browser API that reports upload progress
   * (`onProgress(sent, total)`); same headers and error decoding as every other write.
   */
  uploadWithProgress(
    file: File,
    options: { doctype?: string; docname?: string; fieldname?: string; isPrivate?: boolean },
    onProgress: (sent: number, total: number) => void,
  ): Promise<Doc> {
    const form = new FormData();
    form.set('is_private', options.isPrivate ? '1' : '0');
    if (options.doctype) form.set('doctype', options.doctype);
    if (options.docname) form.set('docname', options.docname);
    if (options.fieldname) form.set('fieldname', options.fieldname);
    form.set('file', file, file.name);
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/method/upload_file');
      xhr.setRequestHeader('Accept', 'application/json');
      const token = csrfToken();
      if (token) xhr.setRequestHeader('X-Frappe-CSRF-Token', token);
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
      xhr.onerror = () => reject(new ApiError(0, 'NetworkError', [{ message: `Upload of ${file.name} failed: no answer from the server` }]));
      xhr.onload = () => {
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(xhr.responseText) as Record<string, unknown>;
        } catch {
          // A non-JSON answer is reported by its status alone.
        }
        if (xhr.status >= 200 && xhr.status < 300) resolve(json.message as Doc);
        else reject(new ApiError(xhr.status, String(json.exc_type ?? ''), serverMessages(json)));
      };
      xhr.send(form);
    });
  },
  download,
  async login(usr: string, pwd: string): Promise<Record<string, unknown>> {
    return send('POST', '/api/method/login', { usr, pwd });
  },
  /** The second step of a two-factor login: the code (or a recovery code) for the `tmp_id` the first step answered. */
  async verifyLogin(tmpId: string, otp: string): Promise<Record<string, unknown>> {
    return send('POST', '/api/method/login', { tmp_id: tmpId, otp });
  },
  async logout(): Promise<void> {
    await send('POST', '/api/method/logout', {});
  },
};
