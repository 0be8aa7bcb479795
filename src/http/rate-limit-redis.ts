// Rate-limit counters in Redis (REDIS_URL), so every instance behind a load balancer shares one limit.
// If Redis stops answering, counting falls back to this process's memory rather than failing requests:
// the limit then holds per instance until Redis is back. After a failure Redis is left alone for a
// moment (RETRY_AFTER_MS), so a hung server costs one timeout, not one per request.
import { createClient, type RedisClientType } from 'redis';
import { LRUCache } from 'lru-cache';

// the client createClient gives without modules or scripts (RESP3 is the default in redis 6)
type Client = RedisClientType<{}, {}, {}, 3, {}>;
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';
import { silentLogger, type Logger } from '../observability/log.js';

/** How long counting stays in memory after Redis failed or did not answer in time. */
const RETRY_AFTER_MS = 5_000;
const ANSWER_WITHIN_MS = 500;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();
  /** the counts Redis last answered, by key (a key names its window, so old ones are simply never read again) */
  private readonly lastSeen = new LRUCache<string, number>({ max: 10_000 });
  private warned = false;
  private retryAt = 0;

  private constructor(private readonly client: Client, private readonly prefix: string, private readonly log: Logger) {}

  static async connect(url: string, prefix = 'stackwright:rl:', log: Logger = silentLogger): Promise<RedisRateLimitStore> {
    let connectedOnce = false;
    const client = createClient({
      url,
      // fail a command at once while disconnected instead of queueing it: the caller falls back to memory
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 2000,
        // the first connection must work (a wrong REDIS_URL stops the start); later, keep retrying
        reconnectStrategy: (retries: number, cause: Error) => (connectedOnce ? Math.min(retries * 200, 2000) : cause),
      },
    });
    const store = new RedisRateLimitStore(client, prefix, log);
    // before the first connection an error stops the start (the caller says so): no fallback line then
    client.on('error', (e: Error) => { if (connectedOnce) store.warn(e); });
    client.on('ready', () => { connectedOnce = true; });
    await client.connect();
    return store;
  }

  async increment(key: string, windowEndsAt: number): Promise<number> {
    if (!this.client.isReady || Date.now() < this.retryAt) return this.fallback.increment(key, windowEndsAt);
    try {
      const fullKey = this.prefix + key;
      const [count] = await withTimeout(this.client.multi().incr(fullKey).expireAt(fullKey, Math.ceil(windowEndsAt) + 1).exec(), ANSWER_WITHIN_MS);
      if (this.warned) this.log.info({ redis: 'up' }, 'rate limits: Redis answers again; counting there');
      this.warned = false;
      this.lastSeen.set(key, Number(count));
      return Number(count);
    } catch (e) {
      this.warn(e as Error);
      return this.fallback.increment(key, windowEndsAt);
    }
  }

  /**
   * The count Redis last gave this instance for `key` (or, while Redis is set aside, the count in memory),
   * without a command: the answers that spend no token read this, and must not wait on Redis.
   */
  known(key: string): number {
    if (!this.available) return this.fallback.known(key);
    return this.lastSeen.get(key) ?? 0;
  }

  private warn(e: Error): void {
    this.retryAt = Date.now() + RETRY_AFTER_MS;
    if (this.warned) return;
    this.warned = true;
    this.log.error({ redis: 'down', err: e }, `rate limits: Redis unavailable (${e.message}); counting in memory until it is back (tried again every ${RETRY_AFTER_MS / 1000} s)`);
  }

  /** Redis answers: connected, and not set aside after a failure (the metrics' stackwright_redis_up). */
  get available(): boolean {
    return this.client.isReady && Date.now() >= this.retryAt;
  }

  async close(): Promise<void> {
    await this.fallback.close();
    // a client that lost its server may refuse a polite QUIT; then just drop the socket
    try {
      await withTimeout(this.client.quit(), 1000);
    } catch {
      try { this.client.destroy(); } catch { /* already closed */ }
    }
  }
}

/** A slow Redis must not hold requests: past `ms` the caller counts in memory instead. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
