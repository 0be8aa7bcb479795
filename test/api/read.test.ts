// The public read endpoints, through HTTP: shapes exactly as the spec's tables, filters, 404 and 405.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiError, okData, shippedCatalogue, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const SERVICE_FIELDS = ['id', 'name', 'description', 'category', 'image', 'imageTag', 'maturity', 'ports', 'requires', 'conflictsWith', 'minMemoryMB', 'tags'];

describe('GET /api/v1/health', () => {
  test('reports ok, the version, whole-second uptime and the catalogue counts', async () => {
    const data = await okData(await server.get('/api/v1/health'));
    const catalogue = shippedCatalogue();
    assert.deepEqual(Object.keys(data).sort(), ['catalogue', 'presets', 'services', 'skillPacks', 'status', 'uptime', 'version']);
    assert.equal(data.catalogue.revision, catalogue.revision);
    assert.ok(!Number.isNaN(Date.parse(data.catalogue.loadedAt)));
    assert.equal(data.catalogue.lastReloadError, null);
    assert.equal(data.status, 'ok');
    assert.match(data.version, /^\d+\.\d+\.\d+$/);
    assert.ok(Number.isInteger(data.uptime) && data.uptime >= 0);
    assert.equal(data.services, catalogue.services.size);
    assert.equal(data.skillPacks, catalogue.skillPacks.size);
    assert.equal(data.presets, catalogue.presets.size);
  });
});

describe('GET /api/v1/services', () => {
  test('lists every service with exactly the spec fields and their types', async () => {
    const data = await okData(await server.get('/api/v1/services'));
    assert.equal(data.total, shippedCatalogue().services.size);
    assert.equal(data.services.length, data.total);
    for (const s of data.services) {
      assert.deepEqual(Object.keys(s), SERVICE_FIELDS);
      assert.ok(['stable', 'beta', 'experimental'].includes(s.maturity));
      assert.ok(Number.isInteger(s.minMemoryMB));
      for (const p of s.ports) assert.ok(Number.isInteger(p.host) && Number.isInteger(p.container));
      for (const field of ['requires', 'conflictsWith', 'tags']) assert.ok(Array.isArray(s[field]));
      assert.notEqual(s.imageTag, 'latest');
    }
  });

  test('does not list frameworks (they are not companion services)', async () => {
    const data = await okData(await server.get('/api/v1/services'));
    assert.ok(!data.services.some((s: { id: string }) => s.id === 'openclaw'));
  });

  test('reports conflicts in both directions', async () => {
    const data = await okData(await server.get('/api/v1/services'));
    const byId = new Map(data.services.map((s: { id: string }) => [s.id, s]));
    for (const s of data.services) {
      for (const other of s.conflictsWith) assert.ok((byId.get(other) as { conflictsWith: string[] }).conflictsWith.includes(s.id), `${s.id} ↔ ${other}`);
    }
  });

  test('filters by category, tag and maturity, alone and combined', async () => {
    const all = (await okData(await server.get('/api/v1/services'))).services as { id: string; category: string; tags: string[]; maturity: string }[];
    const category = all[0].category;
    const byCategory = await okData(await server.get(`/api/v1/services?category=${category}`));
    assert.deepEqual(byCategory.services.map((s: { id: string }) => s.id), all.filter((s) => s.category === category).map((s) => s.id));
    assert.equal(byCategory.total, byCategory.services.length);

    const tag = all.find((s) => s.tags.length)!.tags[0];
    const byTag = await okData(await server.get(`/api/v1/services?tag=${tag}`));
    assert.deepEqual(byTag.services.map((s: { id: string }) => s.id), all.filter((s) => s.tags.includes(tag)).map((s) => s.id));

    const stable = await okData(await server.get('/api/v1/services?maturity=stable'));
    assert.ok(stable.services.length > 0 && stable.services.every((s: { maturity: string }) => s.maturity === 'stable'));

    const combined = await okData(await server.get(`/api/v1/services?category=${category}&maturity=stable&tag=${tag}`));
    assert.deepEqual(combined.services.map((s: { id: string }) => s.id),
      all.filter((s) => s.category === category && s.maturity === 'stable' && s.tags.includes(tag)).map((s) => s.id));
  });

  test('an unknown tag matches nothing', async () => {
    const data = await okData(await server.get('/api/v1/services?tag=no-such-tag'));
    assert.deepEqual(data, { total: 0, services: [] });
  });

  test('rejects a bad filter with a message naming the fix', async () => {
    const err = await apiError(await server.get('/api/v1/services?maturity=alpha&category=databse&colour=red'), 400, 'VALIDATION_ERROR');
    const errors: string[] = err.details.errors;
    assert.ok(errors.some((e) => /maturity must be one of stable, beta, experimental/.test(e)));
    assert.ok(errors.some((e) => /unknown category "databse" \(did you mean "database"\?\)/.test(e)));
    assert.ok(errors.some((e) => /unknown query parameter "colour"/.test(e)));
  });
});

describe('GET /api/v1/skills', () => {
  test('lists skill packs with the spec fields', async () => {
    const data = await okData(await server.get('/api/v1/skills'));
    assert.equal(data.total, shippedCatalogue().skillPacks.size);
    for (const p of data.skillPacks) {
      assert.deepEqual(Object.keys(p), ['id', 'name', 'description', 'requiredServices', 'optionalServices', 'skills']);
      assert.ok(p.skills.length > 0);
    }
  });
});

describe('GET /api/v1/presets', () => {
  test('lists presets in the list form (ids only)', async () => {
    const data = await okData(await server.get('/api/v1/presets'));
    assert.deepEqual(Object.keys(data), ['presets']);
    assert.equal(data.presets.length, shippedCatalogue().presets.size);
    for (const p of data.presets) {
      assert.deepEqual(Object.keys(p), ['id', 'name', 'description', 'services', 'skills']);
      assert.ok(p.services.every((s: unknown) => typeof s === 'string'));
    }
  });

  test('shows one preset in the detail form with what it needs in memory and its worst case', async () => {
    const list = (await okData(await server.get('/api/v1/presets'))).presets;
    for (const p of list) {
      const data = await okData(await server.get(`/api/v1/presets/${p.id}`));
      assert.deepEqual(Object.keys(data), ['id', 'name', 'description', 'services', 'skills', 'estimatedMemoryMB', 'memoryLimitMB']);
      assert.deepEqual(data.services.map((s: { id: string }) => s.id), p.services);
      for (const s of data.services) assert.deepEqual(Object.keys(s), ['id', 'name', 'category']);
      for (const s of data.skills) {
        assert.deepEqual(Object.keys(s), ['id', 'name', 'skillCount']);
        assert.ok(Number.isInteger(s.skillCount) && s.skillCount > 0);
      }
      // what the preset needs and its worst case: the same figures validate gives for it
      const validated = await okData(await server.post('/api/v1/validate', { preset: p.id }));
      assert.equal(data.estimatedMemoryMB, validated.estimatedMemoryMB, p.id);
      assert.equal(data.memoryLimitMB, validated.memoryLimitMB, p.id);
      // at least the framework plus every listed service's minimum, and below the limits
      const catalogue = shippedCatalogue();
      const floor = catalogue.frameworks.get(catalogue.defaultFramework)!.manifest.minMemoryMB
        + p.services.reduce((sum: number, id: string) => sum + catalogue.services.get(id)!.manifest.minMemoryMB, 0);
      assert.ok(data.estimatedMemoryMB >= floor, `${p.id}: ${data.estimatedMemoryMB} < ${floor}`);
      assert.ok(data.estimatedMemoryMB < data.memoryLimitMB, p.id);
    }
  });

  test('404s an unknown preset with NOT_FOUND naming it', async () => {
    const err = await apiError(await server.get('/api/v1/presets/no-such-preset'), 404, 'NOT_FOUND');
    assert.match(err.message, /preset "no-such-preset" does not exist/);
  });
});

describe('GET /api/v1/frameworks and /api/v1/proxies', () => {
  test('list the framework plugins with the default marked', async () => {
    const data = await okData(await server.get('/api/v1/frameworks'));
    assert.equal(data.total, 8);
    assert.equal(data.default, 'openclaw');
    assert.deepEqual(data.frameworks.map((f: { id: string }) => f.id).sort(),
      ['claude-code', 'codex', 'copaw', 'memu', 'nanobot', 'nanoclaw', 'openclaw', 'zeroclaw']);
    assert.equal(data.frameworks.filter((f: { default: boolean }) => f.default).length, 1);
  });

  test('list the proxy plugins', async () => {
    const data = await okData(await server.get('/api/v1/proxies'));
    assert.deepEqual(data.proxies.map((p: { id: string }) => p.id), ['caddy', 'nginx', 'traefik']);
  });
});

describe('unknown paths and methods', () => {
  test('404 with the envelope for an unknown path', async () => {
    await apiError(await server.get('/api/v1/nothing-here'), 404, 'NOT_FOUND');
    // (outside the API: / is the web page, DECISIONS "Operations")
    await apiError(await server.get('/nothing-here'), 404, 'NOT_FOUND');
  });

  test('405 with the envelope and Allow for a known path with the wrong method', async () => {
    const res = await fetch(`${server.url}/api/v1/services`, { method: 'DELETE' });
    assert.equal(res.headers.get('allow'), 'GET');
    await apiError(res, 405, 'METHOD_NOT_ALLOWED');
    const res2 = await server.get('/api/v1/generate');
    assert.equal(res2.headers.get('allow'), 'POST');
    await apiError(res2, 405, 'METHOD_NOT_ALLOWED');
  });

  test('trailing and doubled slashes are tolerated', async () => {
    await okData(await server.get('/api/v1/skills/'));
    await okData(await server.get('//api/v1//skills'));
  });

  test('a . or .. segment, plain or percent-encoded, is a 404: the path is not resolved to another endpoint', async () => {
    // fetch would resolve the segments itself, so the targets go out as they are through node:http
    const { request } = await import('node:http');
    const send = (target: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
      request(`${server.url}${target}`, { path: target }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      }).on('error', reject).end();
    });
    for (const target of ['/api/v1/presets/%2e', '/api/v1/presets/.', '/api/v1/x/%2E%2e/health', '/api/v1/x/../health', '/api/v1/presets/%2e%2e?x=1']) {
      const { status, body } = await send(target);
      assert.equal(status, 404, target);
      assert.equal(body.error.code, 'NOT_FOUND', target);
      assert.match(body.error.message, /\. or \.\. segments are not resolved/, target);
    }
    // a dot inside a segment is an ordinary character
    assert.doesNotMatch((await send('/api/v1/presets/a.b')).body.error.message, /segments/);
    assert.equal((await send('/api/v1/health?x=..')).status, 200);
  });

  test('a malformed path is a 404, never a 500', async () => {
    await apiError(await server.get('/api/v1/presets/%E0%A4%A'), 404, 'NOT_FOUND');
    await apiError(await server.get('/api/v1/services/%zz'), 404, 'NOT_FOUND');
  });
});
