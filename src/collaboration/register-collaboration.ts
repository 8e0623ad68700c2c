import { registerAssignments } from './assignments.js';
import type { CollaborationParts } from './collaboration-parts.js';
import { registerFollows } from './follows.js';
import { registerLikes } from './likes.js';
import { registerTags } from './tags.js';

/**
 * Wires assignments, tags, follows and likes into a site as openSite opens it (docs/collaboration.md):
 * the hooks that keep `_assign` in step and notify followers, and the methods. Their DocTypes (Tag,
 * Tag Link, Document Follow) are built-in DocTypes (collaboration/doctypes/).
 */
export function registerCollaboration(parts: CollaborationParts): void {
  registerAssignments(parts);
  registerTags(parts);
  registerFollows(parts);
  registerLikes(parts);
}
