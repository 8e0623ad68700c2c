import type { UnitOfWork } from '../storage/unit-of-work.js';

/** What apply_workflow is about to save: the state and docstatus the guard then lets through. */
export interface PendingTransition {
  readonly nextState: string;
  readonly docstatus: number;
}

/**
 * The transitions apply_workflow is saving, by unit of work and document: the guard
 * (workflow-guard.ts) lets a state or docstatus change through only when it is the one announced
 * here, in the same unit, so no request body can claim to be a workflow action.
 */
export class PendingTransitions {
  readonly #byUnit = new WeakMap<UnitOfWork, Map<string, PendingTransition>>();

  /** Announces `transition` for the document while `work` saves it; forgotten afterwards, whatever happens. */
  async during<T>(unit: UnitOfWork, doctype: string, name: string, transition: PendingTransition, work: () => Promise<T>): Promise<T> {
    const key = `${doctype}\u0000${name}`;
    let map = this.#byUnit.get(unit);
    if (!map) {
      map = new Map();
      this.#byUnit.set(unit, map);
    }
    map.set(key, transition);
    try {
      return await work();
    } finally {
      map.delete(key);
    }
  }

  /** The transition announced for the document in `unit`, if any. */
  find(unit: UnitOfWork, doctype: string, name: string): PendingTransition | undefined {
    return this.#byUnit.get(unit)?.get(`${doctype}\u0000${name}`);
  }
}
