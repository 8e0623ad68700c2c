import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summarizeRequests } from './metrics-text';

const TEXT = `# HELP fw_http_requests_total HTTP requests answered
# TYPE fw_http_requests_total counter
fw_http_requests_total{method="GET",route="/api/resource/:doctype",status="200"} 8
fw_http_requests_total{method="GET",route="/api/resource/:doctype",status="403"} 2
fw_http_requests_total{method="POST",route="/api/method/upload_file",status="500"} 1
fw_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/api/resource/:doctype"} 9
fw_http_request_duration_seconds_sum{method="GET",route="/api/resource/:doctype"} 0.05
fw_http_request_duration_seconds_count{method="GET",route="/api/resource/:doctype"} 10
fw_http_request_duration_seconds_sum{method="POST",route="/api/method/upload_file"} 0.2
fw_http_request_duration_seconds_count{method="POST",route="/api/method/upload_file"} 1
process_cpu_seconds_total 3
`;

test('totals by status class and the busiest routes with their average time', () => {
  const s = summarizeRequests(TEXT);
  assert.equal(s.total, 11);
  assert.deepEqual(s.byClass, { '2xx': 8, '4xx': 2, '5xx': 1 });
  assert.deepEqual(s.routes, [
    { method: 'GET', route: '/api/resource/:doctype', count: 10, errors: 0, avgMs: 5 },
    { method: 'POST', route: '/api/method/upload_file', count: 1, errors: 1, avgMs: 200 },
  ]);
});

test('no request series: nothing counted', () => {
  assert.deepEqual(summarizeRequests('# nothing\n\ngarbage line\n'), { total: 0, byClass: {}, routes: [] });
});
