import documentFollow from './document-follow.json' with { type: 'json' };
import tagLink from './tag-link.json' with { type: 'json' };
import tag from './tag.json' with { type: 'json' };
import viewLog from './view-log.json' with { type: 'json' };

/** The collaboration DocTypes (docs/collaboration.md); checked and frozen with the core DocTypes. */
export const COLLABORATION_DOCTYPE_JSON: readonly unknown[] = [tag, tagLink, documentFollow, viewLog];

export const TAG = 'Tag';
export const TAG_LINK = 'Tag Link';
export const DOCUMENT_FOLLOW = 'Document Follow';
export const VIEW_LOG = 'View Log';
