import { rename, stat, writeFile } from 'node:fs/promises';
import { maintenanceOf } from '../../site/maintenance.js';
import { readConfigObject } from '../../site/site-config-file.js';
import { sitePaths } from '../../site/site-paths.js';
import { parseOptions } from '../parse-options.js';
import { UsageError } from '../usage-error.js';

/** `fw maintenance --help` */
export const maintenanceUsage = `Usage: fw maintenance on [--allow-reads] [--site <dir>]
       fw maintenance off [--site <dir>]
       fw maintenance status [--site <dir>]

Puts the site in maintenance or takes it out, by setting maintenance_mode and
allow_reads_during_maintenance in its site_config.json. A running server follows at its next
request, no restart needed. In maintenance every write answers 503 InReadOnlyMode; with
--allow-reads reads and logins go on, without it every request answers 503 SessionStopped.
Background jobs keep running.

  --allow-reads   keep serving reads (and logins) during maintenance
  --site <dir>    the site folder (default ./sites/default)

Environment: FW_SITE`;

/** A line saying what the state means for clients. */
function describe(on: boolean, allowReads: boolean): string {
  if (!on) return 'maintenance off: the site serves every request';
  return allowReads ? 'maintenance on: writes answer 503 InReadOnlyMode, reads and logins go on' : 'maintenance on: every request answers 503 SessionStopped';
}

/**
 * `fw maintenance on|off|status`: edits the two keys in site_config.json, keeping every other
 * key, through a temporary file renamed over the old one, so a server reading it at that moment
 * sees the old file or the new one, never half of one.
 */
export async function maintenanceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseOptions(argv, { site: { type: 'string' }, 'allow-reads': { type: 'boolean' } }, true);
  const action = positionals[0];
  if (positionals.length !== 1 || !['on', 'off', 'status'].includes(action)) throw new UsageError('say on, off or status');
  if (values['allow-reads'] && action !== 'on') throw new UsageError('--allow-reads goes with on');
  const dir = values.site ?? process.env.FW_SITE ?? './sites/default';
  const file = sitePaths(dir).config;
  const config = await readConfigObject(file);
  if (action !== 'status') {
    if (action === 'on') {
      config.maintenance_mode = true;
      config.allow_reads_during_maintenance = values['allow-reads'] === true;
    } else {
      delete config.maintenance_mode;
      delete config.allow_reads_during_maintenance;
    }
    const temp = `${file}.${process.pid}.tmp`;
    const { mode } = await stat(file);
    await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: mode & 0o777 });
    await rename(temp, file);
  }
  const state = maintenanceOf(config);
  console.log(`${dir}: ${describe(state.on, state.allowReads)}`);
  return 0;
}
