import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import { PermissionError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { EMAIL_UNSUBSCRIBE } from './doctypes/index.js';
import { isEmailAddress } from './mail-addresses.js';

/** The unsubscribe method (the reference's `frappe.email.queue.unsubscribe`). */
export const UNSUBSCRIBE_METHOD = 'fw.email.queue.unsubscribe';

/** What one unsubscribe link is about. */
export interface UnsubscribeTarget {
  readonly email: string;
  readonly doctype: string;
  readonly name: string;
}

function signature(key: string, t: UnsubscribeTarget): string {
  // A key of its own, derived from the site's encryption key, so this MAC cannot serve elsewhere.
  const derived = createHmac('sha256', key).update('fw mail unsubscribe v1').digest();
  return createHmac('sha256', derived).update(`${t.email.toLowerCase()}\n${t.doctype}\n${t.name}`).digest('base64url');
}

/** The link a bulk mail carries in `List-Unsubscribe` (docs/mail.md "Unsubscribing"). */
export function unsubscribeUrl(baseUrl: string, key: string, t: UnsubscribeTarget): string {
  const query = new URLSearchParams({ email: t.email, doctype: t.doctype, name: t.name, _signature: signature(key, t) });
  return `${baseUrl}/api/method/${UNSUBSCRIBE_METHOD}?${query.toString()}`;
}

function signatureMatches(key: string, t: UnsubscribeTarget, given: string): boolean {
  const expected = Buffer.from(signature(key, t));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** Table of (reference) -> unsubscribed addresses, read in the caller's unit. */
export async function unsubscribedAmong(ctx: DocContext, addresses: readonly string[], reference: { doctype?: string; name?: string }): Promise<Set<string>> {
  if (addresses.length === 0) return new Set();
  const rows = await ctx.q.all<{ email: string; global_unsubscribe: unknown; reference_doctype: string | null; reference_name: string | null }>(
    ctx.dialect.builder
      .selectFrom(ctx.metas.get(EMAIL_UNSUBSCRIBE).tableName)
      .select(['email', 'global_unsubscribe', 'reference_doctype', 'reference_name'])
      .where('email', 'in', [...new Set(addresses.map((a) => a.toLowerCase()))])
      .compile(),
  );
  const out = new Set<string>();
  for (const r of rows) {
    const global = Number(r.global_unsubscribe) === 1;
    if (global || (r.reference_doctype === (reference.doctype ?? null) && r.reference_name === (reference.name ?? null)))
      out.add(String(r.email).toLowerCase());
  }
  return out;
}

/**
 * `unsubscribe(email, doctype, name, _signature)`: Guest may call it with the signed link of a
 * mail; it records an Email Unsubscribe for that address and document (global when the mail was
 * about no document). A wrong signature is 403 and records nothing.
 */
export function registerUnsubscribeMethod(methods: MethodRegistry, documents: DocumentService, key: string): void {
  methods.register(
    UNSUBSCRIBE_METHOD,
    async ({ ctx: detached, args, services }: MethodCall) => {
      const t = { email: String(args.email ?? ''), doctype: String(args.doctype ?? ''), name: String(args.name ?? '') };
      if (!isEmailAddress(t.email) || !signatureMatches(key, t, String(args._signature ?? ''))) {
        throw new PermissionError('This unsubscribe link is not valid');
      }
      const email = t.email.toLowerCase();
      const global = t.doctype === '';
      // Its own write transaction: mail clients follow the link with GET, and GET calls are read-only.
      await services.write(detached.principal, async (ctx) => {
        const already = await unsubscribedAmong(ctx, [email], { doctype: t.doctype || undefined, name: t.name || undefined });
        if (already.has(email)) return;
        await documents.insert(
          ctx,
          EMAIL_UNSUBSCRIBE,
          { email, global_unsubscribe: global ? 1 : 0, reference_doctype: global ? null : t.doctype, reference_name: global ? null : t.name },
          { ignorePermissions: true },
        );
      });
      return `${t.email} has been unsubscribed`;
    },
    {
      allowGuest: true,
      methods: ['GET', 'POST'],
      ownTransactions: true,
      params: [
        { name: 'email', type: 'string', required: true },
        { name: 'doctype', type: 'string' },
        { name: 'name', type: 'string' },
        { name: '_signature', type: 'string', required: true },
      ],
    },
  );
}
