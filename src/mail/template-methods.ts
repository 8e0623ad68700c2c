import type { DocumentService } from '../documents/document-service.js';
import type { HookRegistry } from '../documents/hooks.js';
import { FrappeTypeError, ValidationError } from '../errors/index.js';
import type { MethodCall, MethodRegistry } from '../rpc/method-registry.js';
import { renderTemplate } from './app-mail.js';
import { EMAIL_TEMPLATE } from './doctypes/index.js';
import { checkMailTemplate, MailTemplateError } from './mail-template.js';

export const TEMPLATE_METHODS = 'fw.email.doctype.email_template.email_template';

/** Email Template: its templates must parse when saved; `get_email_template(template_name, doc)` renders one. */
export function registerEmailTemplate(hooks: HookRegistry, methods: MethodRegistry, documents: DocumentService): void {
  hooks.on(EMAIL_TEMPLATE, 'validate', async ({ doc }, next) => {
    try {
      await checkMailTemplate(String(doc.subject ?? ''), 'Subject');
      await checkMailTemplate(String(doc.response ?? ''), 'Response');
      await checkMailTemplate(String(doc.response_html ?? ''), 'Response HTML');
    } catch (err) {
      if (err instanceof MailTemplateError) throw new ValidationError(err.message, { doctype: EMAIL_TEMPLATE });
      throw err;
    }
    await next();
  });

  methods.register(
    `${TEMPLATE_METHODS}.get_email_template`,
    async ({ ctx, args }: MethodCall) => {
      const name = String(args.template_name);
      // The caller must be able to read the template; the document is only what they pass.
      await documents.get(ctx, EMAIL_TEMPLATE, name);
      let doc = args.doc ?? {};
      if (typeof doc === 'string') {
        try {
          doc = doc.trim() === '' ? {} : JSON.parse(doc);
        } catch {
          throw new FrappeTypeError('doc must be a JSON object');
        }
      }
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new FrappeTypeError('doc must be a JSON object');
      return renderTemplate(ctx, name, { doc });
    },
    {
      methods: ['GET', 'POST'],
      params: [
        { name: 'template_name', type: 'string', required: true },
        { name: 'doc', type: 'any' },
      ],
    },
  );
}
