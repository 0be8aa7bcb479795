// Rate limits (spec section 8, DECISIONS "Rate limits"), with test-sized limits.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { apiError, KEY, okData, SECOND_KEY, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
afterEach(() => server?.close());

const LIMITS = { STACK_RATE_LIMIT_READ: '3', STACK_RATE_LIMIT_WRITE: '2', STACK_RATE_LIMIT_GENERATE: '1' };

describe('rate-limit headers', () => {
  test('every response carries X-RateLimit-Limit, -Remaining and -Reset, errors included', async () => {
    server = await startServer(LIMITS);
    for (const res of [await server.get('/api/v1/health'), await server.get('/api/v1/nope'), await server.post('/api/v1/validate', {}, { Authorization: '' })]) {
      assert.match(res.headers.get('x-ratelimit-limit') ?? '', /^\d+$/);
      assert.match(res.headers.get('x-ratelimit-remaining') ?? '', /^\d+$/);
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      assert.ok(Number.isInteger(reset) && reset >= 1 && reset <= 60, `reset ${reset}`);
      await res.arrayBuffer();
    }
  });

  test('remaining counts down within the read bucket', async () => {
    server = await startServer(LIMITS);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const res = await server.get('/api/v1/skills');
      seen.push(res.headers.get('x-ratelimit-remaining'));
      assert.equal(res.headers.get('x-ratelimit-limit'), '3');
      await res.arrayBuffer();
    }
    assert.deepEqual(seen, ['2', '1', '0']);
  });
});

describe('429 RATE_LIMITED', () => {
  test('the read bucket answers 429 with Retry-After once spent', async () => {
    server = await startServer(LIMITS);
    for (let i = 0; i < 3; i++) await okData(await server.get('/api/v1/health'));
    const res = await server.get('/api/v1/health');
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60);
    assert.equal(res.headers.get('retry-after'), res.headers.get('x-ratelimit-reset'));
    assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    const err = await apiError(res, 429, 'RATE_LIMITED');
    assert.match(err.message, /try again in \d+ s/);
  });

  test('buckets are separate: validate counts in write, generate only in generate', async () => {
    server = await startServer(LIMITS);
    await okData(await server.post('/api/v1/generate', { name: 'a' }));
    await apiError(await server.post('/api/v1/generate', { name: 'a' }), 429, 'RATE_LIMITED');
    // the write bucket is untouched by generate
    const res = await server.post('/api/v1/validate', {});
    assert.equal(res.headers.get('x-ratelimit-limit'), '2');
    assert.equal(res.headers.get('x-ratelimit-remaining'), '1');
    await okData(res);
    await okData(await server.post('/api/v1/validate', {}));
    await apiError(await server.post('/api/v1/validate', {}), 429, 'RATE_LIMITED');
    // and reads still work
    await okData(await server.get('/api/v1/health'));
  });

  test('each API key has its own counters', async () => {
    server = await startServer(LIMITS);
    await okData(await server.post('/api/v1/generate', { name: 'a' }, { Authorization: `Bearer ${KEY}` }));
    await okData(await server.post('/api/v1/generate', { name: 'a' }, { Authorization: `Bearer ${SECOND_KEY}` }));
    await apiError(await server.post('/api/v1/generate', { name: 'a' }, { Authorization: `Bearer ${KEY}` }), 429, 'RATE_LIMITED');
  });

  test('X-Forwarded-For is ignored unless the peer is a trusted proxy', async () => {
    server = await startServer(LIMITS);
    for (let i = 0; i < 3; i++) await okData(await server.get('/api/v1/health', { 'X-Forwarded-For': `10.0.0.${i}` }));
    await apiError(await server.get('/api/v1/health', { 'X-Forwarded-For': '10.0.0.99' }), 429, 'RATE_LIMITED');
  });

  test('with STACK_TRUST_PROXY naming the peer, each forwarded client has its own counters', async () => {
    server = await startServer({ ...LIMITS, STACK_TRUST_PROXY: '127.0.0.1' });
    for (let i = 0; i < 3; i++) await okData(await server.get('/api/v1/health', { 'X-Forwarded-For': '203.0.113.7' }));
    await apiError(await server.get('/api/v1/health', { 'X-Forwarded-For': '203.0.113.7' }), 429, 'RATE_LIMITED');
    await okData(await server.get('/api/v1/health', { 'X-Forwarded-For': '203.0.113.8' }));
  });
});

