import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, RequestMetrics } from './request-metrics.js';

/** Answers as they would go out: durations on, between and beyond the bucket bounds. */
const answers: [method: string, route: string, status: number, seconds: number][] = [
  ['GET', '/api/resource/:doctype/:name', 200, 0.0004],
  ['GET', '/api/resource/:doctype/:name', 200, 0.001],
  ['GET', '/api/resource/:doctype/:name', 404, 0.0025],
  ['POST', '/api/resource/:doctype', 200, 0.0031],
  ['GET', '/api/resource/:doctype/:name', 200, 10],
  ['GET', 'unmatched', 404, 42],
  ['POST', '/api/resource/:doctype', 417, 0],
];

/**
 * The samples of a Prometheus text exposition, labels sorted: what a scraper stores, which does not
 * depend on the order of series or of labels within one.
 */
function samples(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels = match[2]!
      .split(/,(?=\w+=")/)
      .sort()
      .join(',');
    found.set(`${match[1]}{${labels}}`, match[3]!);
  }
  return found;
}

function registry(): Registry {
  const r = new Registry();
  r.setDefaultLabels({ worker: '3' });
  return r;
}

describe('request metrics', () => {
  test('expose the samples prom-client Counter and Histogram expose for the same answers', async () => {
    const ours = registry();
    const metrics = new RequestMetrics();
    ours.registerMetric(metrics.counter());
    ours.registerMetric(metrics.durations());

    const theirs = registry();
    const counter = new Counter({
      name: 'fw_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [theirs],
    });
    const histogram = new Histogram({
      name: 'fw_http_request_duration_seconds',
      help: 'Time from request to answer, by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [...DURATION_BUCKETS],
      registers: [theirs],
    });

    for (const [method, route, status, seconds] of answers) {
      metrics.observe(method, route, status, seconds);
      counter.inc({ method, route, status: String(status) });
      histogram.observe({ method, route }, seconds);
    }
    const expected = samples(await theirs.metrics());
    assert.equal(expected.size, 5 + 3 * (DURATION_BUCKETS.length + 3));
    assert.deepEqual(samples(await ours.metrics()), expected);
    // The HELP and TYPE lines too, in the same order.
    const header = (text: string) => text.split('\n').filter((l) => l.startsWith('#'));
    assert.deepEqual(header(await ours.metrics()), header(await theirs.metrics()));
  });

  test('reset forgets every series', async () => {
    const r = registry();
    const metrics = new RequestMetrics();
    r.registerMetric(metrics.counter());
    metrics.observe('GET', '/x', 200, 0.01);
    r.resetMetrics();
    assert.doesNotMatch(await r.metrics(), /fw_http_requests_total\{/);
  });
});
