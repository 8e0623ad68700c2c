import type { Metric, MetricValue, MetricValueWithName } from 'prom-client';

/** Request durations in seconds: from a cache hit to a slow report (docs/deployment.md "Metrics"). */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** The tallies of one (method, route): answers by status, and the duration histogram. */
interface RouteSeries {
  readonly method: string;
  readonly route: string;
  readonly byStatus: Map<number, number>;
  /** Observations per bucket, not yet cumulative; the last slot counts those above every bound. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

/** What a prom-client registry asks of a metric (it registers plain objects like this itself, for cluster totals). */
interface ExposedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: MetricValue<string>[] }>;
  reset(): void;
}

/**
 * `fw_http_requests_total` and `fw_http_request_duration_seconds`, tallied in plain numbers as
 * answers go out and turned into Prometheus series only when the metrics are read. prom-client's
 * own Counter and Histogram check and hash their labels on every observation, which cost a busy
 * server about 5% of a GET's CPU profile (docs/benchmarks.md "What keeps the hot path fast",
 * request metrics); the samples exposed are the same.
 */
export class RequestMetrics {
  readonly #series = new Map<string, RouteSeries>();

  /** Counts one answer of `method` `route` with `status`, taking `seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`;
    let series = this.#series.get(key);
    if (!series) {
      series = { method, route, byStatus: new Map(), buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]!) bucket += 1;
    series.buckets[bucket]! += 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The request counter, for `registry.registerMetric`. */
  counter(): Metric {
    return this.#metric('fw_http_requests_total', 'HTTP requests answered, by method, route pattern and status', 'counter', () => {
      const values: MetricValue<string>[] = [];
      for (const s of this.#series.values()) {
        for (const [status, value] of s.byStatus) values.push({ labels: { method: s.method, route: s.route, status: String(status) }, value });
      }
      return values;
    });
  }

  /** The duration histogram, for `registry.registerMetric`. */
  durations(): Metric {
    const name = 'fw_http_request_duration_seconds';
    return this.#metric(name, 'Time from request to answer, by method and route pattern', 'histogram', () => {
      const values: MetricValueWithName<string>[] = [];
      for (const s of this.#series.values()) {
        const labels = { method: s.method, route: s.route };
        let cumulative = 0;
        DURATION_BUCKETS.forEach((le, i) => {
          cumulative += s.buckets[i]!;
          values.push({ metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative });
        });
        values.push(
          { metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: s.count },
          { metricName: `${name}_sum`, labels, value: s.sum },
          { metricName: `${name}_count`, labels, value: s.count },
        );
      }
      return values;
    });
  }

  #metric(name: string, help: string, type: string, values: () => MetricValue<string>[]): Metric {
    const metric: ExposedMetric = {
      name,
      help,
      type,
      // Workers' series are added up by the cluster primary (docs/deployment.md "Metrics").
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => this.#series.clear(),
    };
    return metric as unknown as Metric;
  }
}
