// Rate limits (spec section 8, DECISIONS "Rate limits"): three buckets, fixed windows aligned to the
// clock, counted per API key or per client address. The counters sit behind RateLimitStore so one
// process can count in memory and many can share Redis (rate-limit-redis.ts).
import type { RateLimitConfig } from '../config.js';
import { ApiError } from '../errors.js';

export const BUCKETS = ['read', 'write', 'generate'] as const;
export type BucketName = (typeof BUCKETS)[number];

export interface RateLimitStore {
  /** Count one request under `key` in the window that ends at `windowEndsAt` (epoch seconds); returns the count so far. */
  increment(key: string, windowEndsAt: number): Promise<number>;
  /** The count so far under `key`, without counting (0 when there is none). */
  current(key: string): Promise<number>;
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

  async take(bucket: BucketName, identity: string): Promise<RateLimitDecision> {
    return this.decide(bucket, identity, true);
  }

  /**
   * The headers a request in `bucket` would carry, without spending a token: for the answers that are
   * never counted (probes, the web page, a connection turned away at a cap), since every response
   * carries X-RateLimit-* (spec section 8).
   */
  async peek(bucket: BucketName, identity: string): Promise<Record<string, string>> {
    return (await this.decide(bucket, identity, false)).headers;
  }

  private async decide(bucket: BucketName, identity: string, count: boolean): Promise<RateLimitDecision> {
    const limit = this.limits[bucket];
    const window = this.limits.windowSeconds;
    const nowSeconds = this.now() / 1000;
    const windowEndsAt = (Math.floor(nowSeconds / window) + 1) * window;
    const key = `${bucket}:${identity}:${windowEndsAt}`;
    const counted = count ? await this.store.increment(key, windowEndsAt) : await this.store.current(key);
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

  async increment(key: string, windowEndsAt: number): Promise<number> {
    const entry = this.counts.get(key);
    if (entry) return ++entry.count;
    this.counts.set(key, { count: 1, expiresAt: windowEndsAt });
    return 1;
  }

  async current(key: string): Promise<number> {
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
