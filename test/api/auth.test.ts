// Bearer-key auth (spec section 5, DECISIONS "Auth").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiError, KEY, okData, SECOND_KEY, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const body = { services: ['redis'] };

describe('protected endpoints', () => {
  for (const path of ['/api/v1/validate', '/api/v1/generate']) {
    test(`${path} without a key is 401 UNAUTHORIZED`, async () => {
      const res = await server.post(path, body, { Authorization: '' });
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const err = await apiError(res, 401, 'UNAUTHORIZED');
      assert.match(err.message, /Authorization: Bearer/);
    });

    test(`${path} with a wrong key is 401 UNAUTHORIZED`, async () => {
      await apiError(await server.post(path, body, { Authorization: 'Bearer not-the-key' }), 401, 'UNAUTHORIZED');
      await apiError(await server.post(path, body, { Authorization: `Basic ${KEY}` }), 401, 'UNAUTHORIZED');
      await apiError(await server.post(path, body, { Authorization: `Bearer ${KEY}x` }), 401, 'UNAUTHORIZED');
    });
  }

  test('accepts each configured key, with the scheme in any case', async () => {
    await okData(await server.post('/api/v1/validate', body, { Authorization: `Bearer ${KEY}` }));
    await okData(await server.post('/api/v1/validate', body, { Authorization: `bearer ${SECOND_KEY}` }));
    await okData(await server.post('/api/v1/validate', body, { Authorization: `BEARER ${KEY}` }));
  });

  test('checks the key before reading the body', async () => {
    // an unauthenticated caller learns nothing about the body rules
    await apiError(await server.post('/api/v1/validate', '{not json', { Authorization: '' }), 401, 'UNAUTHORIZED');
  });
});

describe('public endpoints', () => {
  test('need no key', async () => {
    for (const path of ['/api/v1/health', '/api/v1/services', '/api/v1/skills', '/api/v1/presets', '/api/v1/presets/full-stack', '/api/v1/frameworks', '/api/v1/proxies']) {
      await okData(await server.get(path));
    }
  });
});
