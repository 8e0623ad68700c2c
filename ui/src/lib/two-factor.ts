/*
 * Two-factor login in the admin UI (docs/identity.md "Two-factor login"): what the first step of
 * `login` answered, and the QR code as an image source.
 */

/** The second step a login asks for, from the reference's `verification` and `tmp_id`. */
export interface SecondStep {
  tmpId: string;
  /** `OTP App` (a code from the app) or `Email` (a mailed code, or a first login's mailed QR link). */
  method: string;
  /** What the server says to tell the user, if anything. */
  prompt: string;
}

/** The second step the answer of `login` asks for, or null when it started a session. */
export function secondStepOf(body: Record<string, unknown>): SecondStep | null {
  const tmpId = body.tmp_id;
  const v = body.verification;
  if (typeof tmpId !== 'string' || tmpId === '' || v === null || typeof v !== 'object') return null;
  const verification = v as Record<string, unknown>;
  const method = typeof verification.method === 'string' ? verification.method : 'OTP App';
  let prompt = typeof verification.prompt === 'string' ? verification.prompt : '';
  if (verification.token_delivery === false) prompt = 'No code could be sent: your account has no email address. Ask a System Manager.';
  return { tmpId, method, prompt };
}

/**
 * A second step handed over in the page's fragment (`/login#tmp_id=…&method=…`), as a social login's
 * redirect does (docs/identity.md "Completing a login"); the fragment never reaches a server.
 */
export function secondStepFromHash(hash: string): SecondStep | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const tmpId = params.get('tmp_id');
  if (!tmpId || !/^[A-Za-z0-9_-]{1,200}$/.test(tmpId)) return null;
  return { tmpId, method: params.get('method') === 'Email' ? 'Email' : 'OTP App', prompt: '' };
}

/**
 * What the code field's label says for a method. `Email` also stands for a first login by app (the
 * reference mails the QR link and answers the Email shape), so its label names neither source; the
 * prompt above it says which.
 */
export function codeLabel(step: SecondStep): string {
  return step.method === 'Email' ? 'Verification code' : 'Code from your authenticator app';
}

/** The server's QR code (SVG text) as an `<img>` source: an image never runs script, whatever the SVG holds. */
export function svgImageSource(svg: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(svg)) binary += String.fromCharCode(byte);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}
