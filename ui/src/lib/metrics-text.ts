/*
 * Reads the request metrics fw exposes in the Prometheus text format (docs/deployment.md
 * "Metrics") into what the Operations screen shows at a glance: totals by status class, and the
 * busiest routes with their average time. Only the two request series are read; others are ignored.
 */

export interface RouteFigures {
  method: string;
  route: string;
  count: number;
  errors: number;
  avgMs: number;
}

export interface RequestSummary {
  total: number;
  byClass: Record<string, number>;
  routes: RouteFigures[];
}

/** `name{a="1",b="x"} 12` -> its name, labels and value; undefined for comments and blank lines. */
function parseSample(line: string): { name: string; labels: Record<string, string>; value: number } | undefined {
  const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line.trim());
  if (!m) return undefined;
  const labels: Record<string, string> = {};
  for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  const value = Number(m[4]);
  return Number.isFinite(value) ? { name: m[1]!, labels, value } : undefined;
}

export function summarizeRequests(text: string, top = 8): RequestSummary {
  const byClass: Record<string, number> = {};
  const routes = new Map<string, RouteFigures & { seconds: number; timed: number }>();
  const entry = (method: string, route: string) => {
    const key = `${method} ${route}`;
    let r = routes.get(key);
    if (!r) routes.set(key, (r = { method, route, count: 0, errors: 0, avgMs: 0, seconds: 0, timed: 0 }));
    return r;
  };
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const s = parseSample(line);
    if (!s) continue;
    const { method = '', route = '', status = '' } = s.labels;
    if (s.name === 'fw_http_requests_total') {
      total += s.value;
      const cls = status ? `${status[0]}xx` : 'other';
      byClass[cls] = (byClass[cls] ?? 0) + s.value;
      const r = entry(method, route);
      r.count += s.value;
      if (Number(status) >= 500) r.errors += s.value;
    } else if (s.name === 'fw_http_request_duration_seconds_sum') entry(method, route).seconds += s.value;
    else if (s.name === 'fw_http_request_duration_seconds_count') entry(method, route).timed += s.value;
  }
  const list = [...routes.values()]
    .filter((r) => r.count > 0)
    .map(({ seconds, timed, ...r }) => ({ ...r, avgMs: timed ? Math.round((seconds / timed) * 10000) / 10 : 0 }))
    .sort((a, b) => b.count - a.count || a.route.localeCompare(b.route))
    .slice(0, top);
  return { total, byClass, routes: list };
}
