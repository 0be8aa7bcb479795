// Shared rate limits in a real Redis: two server instances behind one limit, and what happens when
// Redis goes away (counting falls back to memory; no request fails).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { RedisRateLimitStore } from '../../src/http/rate-limit-redis.js';
import { freePort, spawnServer, stopServer, waitForOutput } from '../support/process.js';
import { scrape, value } from '../support/prometheus.js';
import { apiError, okData, startServer, type TestServer } from '../support/server.js';
import { raw as rawAnswer } from '../support/raw-http.js';

let redis: ChildProcess;
let port: number;

async function waitForPort(p: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(p, '127.0.0.1', () => { s.end(); resolve(true); }).on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not open port ${p}`);
}

before(async () => {
  port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  redis.on('error', (e) => { throw new Error(`redis-server is needed (npm run setup:test-tools): ${e.message}`); });
  await waitForPort(port);
});
after(() => { redis.kill('SIGKILL'); });

describe('Redis rate-limit store', () => {
  let a: TestServer;
  let b: TestServer;
  let stores: RedisRateLimitStore[];

  test('two instances share one limit', async () => {
    stores = [await RedisRateLimitStore.connect(`redis://127.0.0.1:${port}`, `t1:${Date.now()}:`)];
    stores.push(await RedisRateLimitStore.connect(`redis://127.0.0.1:${port}`, (stores[0] as unknown as { prefix: string }).prefix));
    a = await startServer({ STACK_RATE_LIMIT_READ: '3' }, stores[0]);
    b = await startServer({ STACK_RATE_LIMIT_READ: '3' }, stores[1]);
    await okData(await a.get('/api/v1/health'));
    await okData(await b.get('/api/v1/health'));
    const third = await a.get('/api/v1/health');
    assert.equal(third.headers.get('x-ratelimit-remaining'), '0');
    await okData(third);
    await apiError(await b.get('/api/v1/health'), 429, 'RATE_LIMITED');
  });

  test('when Redis stops, requests still succeed, counted in memory', async () => {
    redis.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const res = await a.get('/api/v1/skills');
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('x-ratelimit-remaining'));
    await res.arrayBuffer();
    await a.close();
    await b.close();
  });

  test('connecting to no Redis at all fails, so the server refuses to start, saying only that', async () => {
    const closed = await freePort();
    await assert.rejects(RedisRateLimitStore.connect(`redis://127.0.0.1:${closed}`));
    const start = await spawnServer({ REDIS_URL: `redis://127.0.0.1:${closed}` }).then(() => 'listening', (e: Error) => e.message);
    assert.match(start, /REDIS_URL is set but Redis cannot be reached .*; not starting/);
    assert.doesNotMatch(start, /counting in memory/, 'no fallback line before an exit');
  });
});

describe('a Redis that hangs', () => {
  test('costs one timeout: later requests count in memory at once, without queueing commands for it', async () => {
    const hungPort = await freePort();
    const hung = spawn('redis-server', ['--port', String(hungPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    try {
      await waitForPort(hungPort);
      const url = `redis://127.0.0.1:${hungPort}`;
      const store = await RedisRateLimitStore.connect(url, 'hang:');
      const windowEndsAt = Date.now() / 1000 + 600;
      assert.equal(await store.increment('k', windowEndsAt), 1, 'counted in Redis');
      hung.kill('SIGSTOP');
      // every request is still counted (in memory); only the first one waited for Redis
      const counts = [];
      for (let i = 0; i < 10; i++) counts.push(await store.increment('k', windowEndsAt));
      assert.deepEqual(counts, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      hung.kill('SIGCONT');
      // what reached Redis while it hung: the one timed-out increment, not ten
      const reader = createClient({ url });
      await reader.connect();
      assert.equal(await reader.get('hang:k'), '2');
      await reader.quit();
      await store.close();
    } finally {
      hung.kill('SIGKILL');
    }
  });
});

describe('the headers of answers that spend no token never wait on Redis', () => {
  /**
   * A TCP relay in front of a real redis-server that can be made to hang: it then still accepts and reads
   * what the client sends, keeps it, and answers nothing (a Redis that is up but stuck).
   */
  async function hangableRedis(redisPort: number) {
    let hung = false;
    let heard = '';
    const relay = net.createServer((client) => {
      const upstream = net.connect(redisPort, '127.0.0.1');
      client.on('data', (chunk) => {
        if (hung) heard += chunk.toString('latin1');
        else upstream.write(chunk);
      });
      upstream.on('data', (chunk) => { if (!hung) client.write(chunk); });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    return {
      url: `redis://127.0.0.1:${(relay.address() as net.AddressInfo).port}`,
      hang: () => { hung = true; },
      heard: () => heard,
      close: () => { relay.close(); },
    };
  }

  test('probes, the web page and a parser refusal send Redis no command; a counted read does', async () => {
    const ownPort = await freePort();
    const own = spawn('redis-server', ['--port', String(ownPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitForPort(ownPort);
    const relay = await hangableRedis(ownPort);
    const store = await RedisRateLimitStore.connect(relay.url, `known:${Date.now()}:`);
    const server = await startServer({ STACK_RATE_LIMIT_READ: '50' }, store);
    try {
      const counted = await server.get('/api/v1/skills');
      assert.equal(counted.headers.get('x-ratelimit-remaining'), '49', 'counted in Redis');
      await counted.arrayBuffer();
      relay.hang();
      for (const path of ['/livez', '/readyz', '/livez/', '/']) {
        const res = await server.get(path);
        assert.equal(res.status, 200, path);
        // what this instance last counted for the address: nothing more, nothing asked
        assert.equal(res.headers.get('x-ratelimit-remaining'), '49', path);
        assert.equal(res.headers.get('x-ratelimit-limit'), '50', path);
        await res.arrayBuffer();
      }
      const refused = await rawAnswer(server.port, `GET /livez HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
      assert.match(refused.text, /^HTTP\/1\.1 431 [^]*\r\nX-RateLimit-Remaining: 49\r\n/);
      assert.equal(relay.heard(), '', 'no command reached the hung Redis');
      // the listener does hear commands: a counted read sends one (and, unanswered, falls back to memory)
      const read = await server.get('/api/v1/skills');
      assert.equal(read.status, 200);
      await read.arrayBuffer();
      assert.match(relay.heard(), /INCR/i);
    } finally {
      await server.close().catch(() => undefined);
      relay.close();
      own.kill('SIGKILL');
    }
  });

  test('known() is what Redis last answered this instance, without a command; the memory count while Redis is set aside', async () => {
    const ownPort = await freePort();
    const own = spawn('redis-server', ['--port', String(ownPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    await waitForPort(ownPort);
    const store = await RedisRateLimitStore.connect(`redis://127.0.0.1:${ownPort}`, 'known:');
    try {
      const windowEndsAt = Date.now() / 1000 + 600;
      assert.equal(store.known('k'), 0, 'no counter yet');
      await store.increment('k', windowEndsAt);
      await store.increment('k', windowEndsAt);
      assert.equal(store.known('k'), 2);
      assert.equal(store.known('k'), 2, 'reading did not count');
      assert.equal(await store.increment('k', windowEndsAt), 3);
      own.kill('SIGSTOP');
      assert.equal(await store.increment('k', windowEndsAt), 1, 'Redis hung: counted in memory');
      assert.equal(store.known('k'), 1, 'the count the decisions use while Redis is set aside');
    } finally {
      own.kill('SIGKILL');
      await store.close();
    }
  });
});

describe('Redis availability in /metrics', () => {
  test('stackwright_redis_up is 1 while Redis answers and 0 once counting has fallen back to memory', async () => {
    const redisPort = await freePort();
    const own = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const key = 'redis-metrics-Key-5Tg7Yh2Uj9Ik4Ol8Pz';
    try {
      await waitForPort(redisPort);
      const server = await spawnServer({ STACK_API_KEY: key, REDIS_URL: `redis://127.0.0.1:${redisPort}`, STACK_WATCH_CATALOGUE: '0' });
      try {
        assert.equal(value(await scrape(server.url, key), 'stackwright_redis_up'), 1);
        own.kill('SIGSTOP');
        const mark = server.output().length;
        assert.equal((await fetch(`${server.url}/api/v1/skills`)).status, 200, 'answered, counted in memory');
        await waitForOutput(server, /Redis unavailable/, mark);
        assert.equal(value(await scrape(server.url, key), 'stackwright_redis_up'), 0);
        const down = server.records().find((r) => r.redis === 'down');
        assert.equal(down?.level, 'error');
      } finally {
        own.kill('SIGCONT');
        await stopServer(server);
      }
    } finally {
      own.kill('SIGKILL');
    }
  });
});
