// GET /metrics in the Prometheus text format (prom-client), one registry per server. Counters that other
// parts of the service already keep as plain numbers (rate-limit rejections, connection-cap actions) are
// read when Prometheus scrapes, so those parts need no knowledge of prom-client.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LiveEngine } from '../live/live-engine.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { WorkQueue } from '../usecases/work-queue.js';

export interface MetricSources {
  engine: LiveEngine;
  rateLimiter: RateLimiter;
  generations: WorkQueue;
  /** connections closed or refused at a cap, by action (src/http/connections.ts) */
  connectionCapActions: Readonly<Record<string, number>>;
}

export interface Metrics {
  readonly registry: Registry;
  requestDone(method: string, route: string, status: number, seconds: number): void;
}

const PREFIX = 'stackwright_';

export function createMetrics(sources: MetricSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // process and Node.js runtime metrics (CPU, memory, event-loop delay, GC) under their usual names
  collectDefaultMetrics({ register: registry });

  // counted here per request (a string key and a number), added to the counter when it is scraped:
  // prom-client hashes and checks the labels on every inc, a few % of a catalogue read's CPU
  const uncounted = new Map<string, { labels: { method: string; route: string; status: string }; n: number }>();
  new Counter({
    name: `${PREFIX}http_requests_total`, help: 'HTTP requests answered, by method, route pattern and status (499: the client went away first)', labelNames: ['method', 'route', 'status'], registers,
    collect() {
      for (const { labels, n } of uncounted.values()) this.inc(labels, n);
      uncounted.clear();
    },
  });
  const durations = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`, help: 'Time from a request arriving to its answer sent, by method and route pattern', labelNames: ['method', 'route'], registers,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

  const { generations, rateLimiter, engine } = sources;
  const queueWait = new Histogram({ name: `${PREFIX}generate_queue_wait_seconds`, help: 'Time a generation waited for its turn in the queue', registers, buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] });
  generations.onTurn = (seconds) => queueWait.observe(seconds);
  new Gauge({ name: `${PREFIX}generate_queue_depth`, help: 'Generations waiting for their turn', registers, collect() { this.set(generations.waitingCount); } });
  new Gauge({ name: `${PREFIX}generate_running`, help: 'Generations under way', registers, collect() { this.set(generations.runningCount); } });

  new Counter({
    name: `${PREFIX}rate_limit_rejections_total`, help: 'Requests answered 429, by bucket (API and MCP)', labelNames: ['bucket'], registers,
    collect() { mirror(this, 'bucket', rateLimiter.rejections); },
  });
  new Counter({
    name: `${PREFIX}connection_cap_actions_total`, help: 'Connections closed or turned away at the connection caps, by action', labelNames: ['action'], registers,
    collect() { mirror(this, 'action', sources.connectionCapActions); },
  });
  if (rateLimiter.storeAvailable !== undefined) {
    new Gauge({ name: `${PREFIX}redis_up`, help: '1 while the shared rate-limit store (Redis) answers, 0 while counting has fallen back to memory', registers, collect() { this.set(rateLimiter.storeAvailable ? 1 : 0); } });
  }

  new Gauge({
    name: `${PREFIX}catalogue_info`, help: 'The catalogue revision in force (always 1; the revision is the label)', labelNames: ['revision'], registers,
    collect() { this.reset(); this.set({ revision: engine.current.catalogue.revision }, 1); },
  });
  new Gauge({ name: `${PREFIX}catalogue_loaded_timestamp_seconds`, help: 'When the catalogue in force was loaded (Unix time)', registers, collect() { this.set(engine.current.loadedAt.getTime() / 1000); } });
  const reloads = new Counter({ name: `${PREFIX}catalogue_reloads_total`, help: 'Catalogue reloads by outcome: changed, unchanged, or refused (the reload found errors; the last good catalogue keeps serving)', labelNames: ['outcome'], registers });
  for (const outcome of ['changed', 'unchanged', 'refused']) reloads.inc({ outcome }, 0);
  engine.on('reload', (_reason: string, _snapshot: unknown, changed: boolean) => reloads.inc({ outcome: changed ? 'changed' : 'unchanged' }));
  engine.on('reloadFailed', () => reloads.inc({ outcome: 'refused' }));

  return {
    registry,
    requestDone(method, route, status, seconds) {
      const key = `${method} ${route} ${status}`;
      const entry = uncounted.get(key);
      if (entry) entry.n++;
      else uncounted.set(key, { labels: { method, route, status: String(status) }, n: 1 });
      durations.observe({ method, route }, seconds);
    },
  };
}

/** A counter whose counts are kept elsewhere, by one label: brought up to those counts at scrape time. */
function mirror(counter: Counter<string>, label: string, counts: Readonly<Record<string, number>>): void {
  counter.reset();
  for (const [value, n] of Object.entries(counts)) counter.inc({ [label]: value }, n);
}
