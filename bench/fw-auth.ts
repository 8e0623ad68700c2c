/** The user the scenarios run as: not the Administrator, whom permission checks wave through. */
export const BENCH_USER = 'bench@example.com';

async function call(origin: string, path: string, init: RequestInit): Promise<{ status: number; body: unknown; res: Response }> {
  const res = await fetch(origin + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text for the error message
  }
  return { status: res.status, body, res };
}

function fail(what: string, status: number, body: unknown): never {
  throw new Error(`${what} answered ${status}: ${JSON.stringify(body).slice(0, 500)}`);
}

/**
 * Logs in as the Administrator, makes sure the bench user exists (role All only, which ToDo's
 * permissions grant read, write, create and delete), and returns an `Authorization` header value
 * with a fresh API key of that user.
 */
export async function benchUserToken(origin: string, adminPassword: string): Promise<string> {
  const json = { 'content-type': 'application/json' };
  const login = await call(origin, '/api/method/login', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ usr: 'Administrator', pwd: adminPassword }),
  });
  if (login.status !== 200) fail('login', login.status, login.body);
  const sid = login.res.headers
    .getSetCookie()
    .map((c) => /^sid=([^;]*)/.exec(c)?.[1])
    .find((v) => v);
  if (!sid) throw new Error('login set no sid cookie');
  const admin = { ...json, cookie: `sid=${sid}` };

  const existing = await call(origin, `/api/resource/User/${encodeURIComponent(BENCH_USER)}`, { headers: admin });
  if (existing.status === 404) {
    const created = await call(origin, '/api/resource/User', {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ email: BENCH_USER, first_name: 'Bench', send_welcome_email: 0 }),
    });
    if (created.status !== 200) fail('creating the bench user', created.status, created.body);
  } else if (existing.status !== 200) {
    fail('reading the bench user', existing.status, existing.body);
  }

  const keys = await call(origin, '/api/method/fw.core.doctype.user.user.generate_keys', {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ user: BENCH_USER }),
  });
  const message = (keys.body as { message?: { api_key?: string; api_secret?: string } }).message;
  if (keys.status !== 200 || !message?.api_key || !message.api_secret) fail('generate_keys', keys.status, keys.body);
  return `token ${message.api_key}:${message.api_secret}`;
}
