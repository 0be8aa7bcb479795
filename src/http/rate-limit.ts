// Rate limits (spec section 8, DECISIONS "Rate limits"): three buckets, fixed windows aligned to the
// clock, counted per API key or per client address. The counters sit behind RateLimitStore so one
// process can count in memory and many can share Redis (rate-limit-redis.ts).
import type { RateLimitConfig } from '../config.js';
import { ApiError } from '../errors.js';

import type { BucketName } from '../usecases/buckets.js';

export { BUCKETS, type BucketName } from '../usecases/buckets.js';

/**
 * Where the counts live. A store in this process answers at once (a number); a shared one, later (a
 * promise). The limiter keeps the first synchronous, so a request counted in memory waits for no tick.
 */
export interface RateLimitStore {
  /** Count one request under `key` in the window that ends at `windowEndsAt` (epoch seconds); returns the count so far. */
  increment(key: string, windowEndsAt: number): number | Promise<number>;
  /**
   * The count under `key` as this process knows it, at once and without counting (0 when it knows none):
   * never a round trip to a shared store, so an answer that spends no token never waits on one.
   */
  known(key: string): number;
  /** for a shared store: whether it answers now (undefined for counters in this process) */
  readonly available?: boolean;
  close(): Promise<void>;
}

export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds: number;
}

/**
 * The refusal of a request over a spent bucket: what was spent and in how many seconds to try again.
 * `withDetails` adds both as data (an MCP tool result, which has no Retry-After header to carry them).
 */
export function rateLimitedError(bucket: BucketName, decision: RateLimitDecision, withDetails = false): ApiError {
  return new ApiError('RATE_LIMITED', `too many ${bucket} requests: at most ${decision.headers['X-RateLimit-Limit']} a window; try again in ${decision.retryAfterSeconds} s`,
    withDetails ? { details: { bucket, retryAfterSeconds: decision.retryAfterSeconds } } : {});
}

export class RateLimiter {
  /** requests refused so far, by bucket (read by the metrics) */
  readonly rejections: Record<BucketName, number> = { read: 0, write: 0, generate: 0 };

  constructor(private readonly limits: RateLimitConfig, private readonly store: RateLimitStore, private readonly now: () => number = Date.now) {}

  /** Counts the request; the decision at once when the store is in this process, else a promise of it. */
  take(bucket: BucketName, identity: string): RateLimitDecision | Promise<RateLimitDecision> {
    return this.decide(bucket, identity);
  }

  /**
   * The headers a request in `bucket` would carry, without spending a token and without waiting: for the
   * answers that are never counted (probes, the web page, a scrape, a connection turned away at a cap, a
   * request the HTTP parser refused), since every response carries X-RateLimit-* (spec section 8). The
   * count is the one this process knows (store.known); a shared store is not asked, so a hung Redis
   * costs these answers nothing.
   */
  known(bucket: BucketName, identity: string): Record<string, string> {
    const { windowEndsAt, nowSeconds, key } = this.window(bucket, identity);
    return this.decision(bucket, false, this.store.known(key), windowEndsAt, nowSeconds).headers;
  }

  private window(bucket: BucketName, identity: string): { windowEndsAt: number; nowSeconds: number; key: string } {
    const window = this.limits.windowSeconds;
    const nowSeconds = this.now() / 1000;
    const windowEndsAt = (Math.floor(nowSeconds / window) + 1) * window;
    return { windowEndsAt, nowSeconds, key: `${bucket}:${identity}:${windowEndsAt}` };
  }

  private decide(bucket: BucketName, identity: string): RateLimitDecision | Promise<RateLimitDecision> {
    const { windowEndsAt, nowSeconds, key } = this.window(bucket, identity);
    const counted = this.store.increment(key, windowEndsAt);
    return typeof counted === 'number'
      ? this.decision(bucket, true, counted, windowEndsAt, nowSeconds)
      : counted.then((n) => this.decision(bucket, true, n, windowEndsAt, nowSeconds));
  }

  private decision(bucket: BucketName, count: boolean, counted: number, windowEndsAt: number, nowSeconds: number): RateLimitDecision {
    const limit = this.limits[bucket];
    const reset = Math.max(1, Math.ceil(windowEndsAt - nowSeconds));
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - counted)),
      'X-RateLimit-Reset': String(reset),
    };
    const allowed = count ? counted <= limit : counted < limit;
    if (count && !allowed) {
      headers['Retry-After'] = String(reset);
      this.rejections[bucket]++;
    }
    return { allowed, headers, retryAfterSeconds: reset };
  }

  /** whether the shared store answers (undefined when counting in memory) */
  get storeAvailable(): boolean | undefined {
    return this.store.available;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** Counters in this process: right for a single instance. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // drop finished windows now and then so idle clients do not accumulate
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  increment(key: string, windowEndsAt: number): number {
    const entry = this.counts.get(key);
    if (entry) return ++entry.count;
    this.counts.set(key, { count: 1, expiresAt: windowEndsAt });
    return 1;
  }

  known(key: string): number {
    return this.counts.get(key)?.count ?? 0;
  }

  private sweep(): void {
    const nowSeconds = this.now() / 1000;
    for (const [key, entry] of this.counts) if (entry.expiresAt <= nowSeconds) this.counts.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}
