import { COLLABORATION_DOCTYPE_JSON } from '../collaboration/doctypes/index.js';
import { DATA_IMPORT_DOCTYPE_JSON } from '../data-import/doctypes/index.js';
import { JOB_DOCTYPE_JSON } from '../jobs/doctypes/index.js';
import { MAIL_DOCTYPE_JSON } from '../mail/doctypes/index.js';
import { builtInDefinitions, CORE_DOCTYPES } from '../meta/core-doctypes/index.js';
import type { DocTypeDef } from '../meta/doctype.js';
import { REPORT_DOCTYPE_JSON } from '../reports/doctypes/index.js';
import { SEARCH_DOCTYPE_JSON } from '../search/doctypes/index.js';
import { SOCIAL_LOGIN_DOCTYPE_JSON } from '../social-login/doctypes/index.js';
import { OAUTH_DOCTYPE_JSON } from '../oauth/doctypes/index.js';
import { USER_SETTINGS_DOCTYPE_JSON } from '../user-settings/doctypes/index.js';
import { WEBHOOK_DOCTYPE_JSON } from '../webhooks/doctypes/index.js';
import { WORKFLOW_DOCTYPE_JSON } from '../workflows/doctypes/index.js';

/**
 * Every DocType fw ships, in the order a site installs them (child tables before the DocTypes whose
 * Table fields point at them): the core's (meta/core-doctypes/) and then each subsystem's, which
 * each subsystem exports from its own `doctypes/index.ts`. This list is the seam between them
 * (CONTRIBUTING.md "Adding a DocType"): meta/ imports no subsystem. Creating and migrating a site
 * install it (install-core.ts, migrate-site.ts), and apps may not take its names (apps/load-apps.ts).
 */
export const BUILT_IN_DOCTYPES: readonly DocTypeDef[] = Object.freeze([
  ...CORE_DOCTYPES,
  ...builtInDefinitions([
    ...JOB_DOCTYPE_JSON,
    ...WEBHOOK_DOCTYPE_JSON,
    ...WORKFLOW_DOCTYPE_JSON,
    ...REPORT_DOCTYPE_JSON,
    ...DATA_IMPORT_DOCTYPE_JSON,
    ...SEARCH_DOCTYPE_JSON,
    ...MAIL_DOCTYPE_JSON,
    ...SOCIAL_LOGIN_DOCTYPE_JSON,
    ...COLLABORATION_DOCTYPE_JSON,
    ...USER_SETTINGS_DOCTYPE_JSON,
    ...OAUTH_DOCTYPE_JSON,
  ]),
]);
