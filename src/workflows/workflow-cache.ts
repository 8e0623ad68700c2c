import type { DocContext } from '../documents/doc-context.js';
import type { DocumentService } from '../documents/document-service.js';
import type { Row } from '../storage/database.js';
import { WORKFLOW } from './doctypes/index.js';
import { workflowDefinition, type WorkflowDef } from './workflow-definition.js';

/**
 * The active Workflow of each DocType, read once per metadata load: saving or deleting a Workflow
 * bumps the metadata version (workflow-controller.ts), so every process reads them again on its next
 * unit of work, and a save of a DocType without a workflow costs a map lookup.
 */
export class WorkflowCache {
  #loadedFor = -1;
  #byDocType = new Map<string, WorkflowDef>();

  constructor(private readonly documents: DocumentService) {}

  /** The active workflow of `doctype`, if any. */
  async forDocType(ctx: DocContext, doctype: string): Promise<WorkflowDef | undefined> {
    if (this.#loadedFor !== ctx.metas.loads) await this.#load(ctx);
    return this.#byDocType.get(doctype);
  }

  async #load(ctx: DocContext): Promise<void> {
    const loads = ctx.metas.loads;
    const b = ctx.dialect.builder;
    const active = await ctx.q.all<Row>(
      b.selectFrom(ctx.metas.get(WORKFLOW).tableName).select(['name']).where('is_active', '=', 1).orderBy('modified', 'desc').compile(),
    );
    const byDocType = new Map<string, WorkflowDef>();
    for (const { name } of active) {
      const doc = await this.documents.load(ctx, WORKFLOW, String(name));
      if (!doc) continue;
      const def = workflowDefinition(doc);
      // The controller keeps one active workflow per DocType; should two be, the latest saved wins.
      if (!byDocType.has(def.documentType) && def.states.length > 0) byDocType.set(def.documentType, def);
    }
    this.#byDocType = byDocType;
    this.#loadedFor = loads;
  }
}
