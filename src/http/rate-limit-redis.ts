// Rate-limit counters in Redis (REDIS_URL), so every instance behind a load balancer shares one limit.
// If Redis stops answering, counting falls back to this process's memory rather than failing requests:
// the limit then holds per instance until Redis is back.
import { createClient } from 'redis';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit.js';

export class RedisRateLimitStore implements RateLimitStore {
  private readonly fallback = new MemoryRateLimitStore();
  private warned = false;

  private constructor(private readonly client: ReturnType<typeof createClient>, private readonly prefix: string) {}

  static async connect(url: string, prefix = 'stackwright:rl:'): Promise<RedisRateLimitStore> {
    const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) } });
    const store = new RedisRateLimitStore(client, prefix);
    client.on('error', (e: Error) => store.warn(e));
    await client.connect();
    return store;
  }

  async increment(key: string, windowEndsAt: number): Promise<number> {
    if (!this.client.isReady) return this.fallback.increment(key, windowEndsAt);
    try {
      const fullKey = this.prefix + key;
      const [count] = await this.client.multi().incr(fullKey).expireAt(fullKey, Math.ceil(windowEndsAt) + 1).exec();
      this.warned = false;
      return Number(count);
    } catch (e) {
      this.warn(e as Error);
      return this.fallback.increment(key, windowEndsAt);
    }
  }

  private warn(e: Error): void {
    if (this.warned) return;
    this.warned = true;
    console.error(`rate limits: Redis unavailable (${e.message}); counting in memory until it is back`);
  }

  async close(): Promise<void> {
    await this.fallback.close();
    if (this.client.isOpen) await this.client.quit().catch(() => undefined);
  }
}
