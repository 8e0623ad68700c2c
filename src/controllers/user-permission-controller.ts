import type { HookRegistry } from '../documents/hooks.js';
import { DuplicateEntryError, MandatoryError, ValidationError } from '../errors/index.js';

/**
 * User Permission's own behaviour: a rule for every DocType carries no `applicable_for`, a rule for
 * one DocType must name it, the same rule cannot be stored twice, and a user has at most one
 * default value per DocType.
 */
export function registerUserPermissionController(hooks: HookRegistry): void {
  hooks.on('User Permission', 'validate', async ({ doc, ctx }, next) => {
    if (Number(doc.apply_to_all_doctypes) === 1) doc.applicable_for = null;
    else if (typeof doc.applicable_for !== 'string' || doc.applicable_for === '') {
      throw new MandatoryError('Applicable For is required when the permission does not apply to all document types', {
        doctype: 'User Permission',
      });
    }
    const b = ctx.dialect.builder;
    const same = b
      .selectFrom('tabUser Permission')
      .select('name')
      .where('user', '=', String(doc.user))
      .where('allow', '=', String(doc.allow))
      .where('name', '!=', String(doc.name))
      .limit(1);
    const applicable = typeof doc.applicable_for === 'string' ? doc.applicable_for : null;
    const duplicate = await ctx.q.all(
      same
        .where('for_value', '=', String(doc.for_value))
        .where((eb) => (applicable === null ? eb('applicable_for', 'is', null) : eb('applicable_for', '=', applicable)))
        .compile(),
    );
    if (duplicate.length > 0) throw new DuplicateEntryError('User permission already exists', { doctype: 'User Permission' });
    if (Number(doc.is_default) === 1) {
      const otherDefault = await ctx.q.all(same.where('is_default', '=', 1).compile());
      if (otherDefault.length > 0) {
        throw new ValidationError(`${String(doc.user)} has already assigned default value for ${String(doc.allow)}.`);
      }
    }
    await next();
  });
}
