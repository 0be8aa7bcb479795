// POST /api/v1/validate: resolution, warnings and every failure path.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiError, okData, shippedCatalogue, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const validate = (body: unknown) => server.post('/api/v1/validate', body);

describe('valid selections', () => {
  test('returns the spec shape; resolvedServices holds the framework, requirements and the request', async () => {
    const data = await okData(await validate({ services: ['n8n'], skills: ['workflow-automation'] }));
    assert.deepEqual(Object.keys(data), ['valid', 'warnings', 'resolvedServices', 'resolvedSkills', 'estimatedMemoryMB', 'memoryLimitMB']);
    assert.equal(data.valid, true);
    assert.deepEqual(data.warnings, []);
    assert.deepEqual(data.resolvedSkills, ['workflow-automation']);
    assert.ok(data.resolvedServices.includes('openclaw'), 'primary framework included');
    // dependency first: postgresql (required by n8n) before n8n
    assert.ok(data.resolvedServices.indexOf('postgresql') < data.resolvedServices.indexOf('n8n'));
    const c = shippedCatalogue();
    // the estimate is what the parts need (their minimums); memoryLimitMB the limits the compose file sets
    const sum = (field: 'minMemoryMB' | 'memoryLimitMB') => c.frameworks.get('openclaw')!.manifest[field]
      + ['n8n', 'postgresql'].reduce((total, id) => total + c.services.get(id)!.manifest[field], 0);
    assert.equal(data.estimatedMemoryMB, sum('minMemoryMB'));
    assert.equal(data.memoryLimitMB, sum('memoryLimitMB'));
    assert.ok(data.estimatedMemoryMB < data.memoryLimitMB);
  });

  test('an empty body is valid: the primary framework and its requirements only', async () => {
    const data = await okData(await validate({}));
    assert.deepEqual(data.resolvedServices, ['openclaw']);
  });

  test('the framework\'s own requirements come first', async () => {
    const data = await okData(await validate({ primaryFramework: 'memu' }));
    assert.deepEqual(data.resolvedServices, ['postgresql', 'memu']);
  });

  test('companions are resolved beside the primary; the proxy adds to memory', async () => {
    const bare = await okData(await validate({ primaryFramework: 'nanobot' }));
    const data = await okData(await validate({ primaryFramework: 'nanobot', companionFrameworks: ['codex', 'claude-code'], proxy: 'caddy' }));
    assert.deepEqual(data.resolvedServices, ['nanobot', 'codex', 'claude-code']);
    const c = shippedCatalogue();
    for (const [figure, field] of [['estimatedMemoryMB', 'minMemoryMB'], ['memoryLimitMB', 'memoryLimitMB']] as const) {
      assert.equal(data[figure], bare[figure] + c.frameworks.get('codex')!.manifest[field]
        + c.frameworks.get('claude-code')!.manifest[field] + c.proxies.get('caddy')!.manifest[field], figure);
    }
  });

  test('the order of the request does not change the answer', async () => {
    const a = await okData(await validate({ services: ['qdrant', 'redis', 'searxng'] }));
    const b = await okData(await validate({ services: ['searxng', 'qdrant', 'redis'] }));
    assert.deepEqual(a, b);
  });

  test('proxy "none" is accepted', async () => {
    await okData(await validate({ proxy: 'none' }));
  });
});

describe('warnings inside 200', () => {
  test('a conflicting pair is a CONFLICT warning with valid true', async () => {
    const data = await okData(await validate({ services: ['redis', 'valkey'] }));
    assert.equal(data.valid, true);
    assert.deepEqual(data.warnings.map((w: { code: string }) => w.code), ['CONFLICT']);
    assert.match(data.warnings[0].message, /"redis" and "valkey"/);
  });

  test('a preset sent with services is PRESET_OVERRIDES, and the preset wins', async () => {
    const data = await okData(await validate({ preset: 'web-agent', services: ['redis'], skills: ['notifications'] }));
    assert.ok(data.warnings.some((w: { code: string; message: string }) => w.code === 'PRESET_OVERRIDES' && /services and skills/.test(w.message)));
    assert.ok(!data.resolvedServices.includes('redis'));
    assert.deepEqual(data.resolvedSkills, shippedCatalogue().presets.get('web-agent')!.manifest.skills);
  });

  test('gpu and platform produce warnings where they do not fit', async () => {
    const unused = await okData(await validate({ services: ['redis'], gpu: true }));
    assert.ok(unused.warnings.some((w: { code: string }) => w.code === 'GPU_UNUSED'));
    const used = await okData(await validate({ services: ['ollama'], gpu: true }));
    assert.ok(!used.warnings.some((w: { code: string }) => w.code === 'GPU_UNUSED'));
  });
});

describe('400 VALIDATION_ERROR', () => {
  async function errors(body: unknown): Promise<string[]> {
    const err = await apiError(await validate(body), 400, 'VALIDATION_ERROR');
    assert.match(err.message, /invalid/);
    assert.ok(Array.isArray(err.details.errors) && err.details.errors.every((e: unknown) => typeof e === 'string'));
    return err.details.errors;
  }

  test('each unknown id is its own entry, with the nearest id suggested', async () => {
    const list = await errors({ services: ['postgress', 'qdrant', 'nosuchthing'], skills: ['web-reserch'] });
    assert.ok(list.some((e) => e === 'unknown service "postgress" (did you mean "postgresql"?)'), list.join('\n'));
    assert.ok(list.some((e) => /^unknown service "nosuchthing"$/.test(e)));
    assert.ok(list.some((e) => /unknown skill pack "web-reserch" \(did you mean "web-research"\?\)/.test(e)));
  });

  test('unknown preset, framework and proxy are named', async () => {
    const list = await errors({ preset: 'full-stak', primaryFramework: 'openclw', companionFrameworks: ['nope'], proxy: 'apache' });
    assert.ok(list.some((e) => /unknown preset "full-stak" \(did you mean "full-stack"\?\)/.test(e)));
    assert.ok(list.some((e) => /unknown primaryFramework "openclw" \(did you mean "openclaw"\?\)/.test(e)));
    assert.ok(list.some((e) => /unknown companion framework "nope"/.test(e)));
    assert.ok(list.some((e) => /unknown proxy "apache".*one of: none, caddy, nginx, traefik/.test(e)));
  });

  test('a skill pack without its required service says which to add', async () => {
    const list = await errors({ skills: ['web-research'] });
    assert.deepEqual(list, ['skill pack "web-research" needs service "searxng": add it to services']);
  });

  test('a companion equal to the primary, or listed twice, is refused', async () => {
    const list = await errors({ primaryFramework: 'codex', companionFrameworks: ['codex', 'memu', 'memu'] });
    assert.ok(list.some((e) => /"codex" is already the primary framework/.test(e)));
    assert.ok(list.some((e) => /"memu" is listed twice/.test(e)));
  });

  test('a framework id sent as a service is explained', async () => {
    const list = await errors({ services: ['openclaw'] });
    assert.match(list[0], /"openclaw" is a framework, not a service/);
  });

  test('wrong types and unknown fields name the field', async () => {
    const list = await errors({ services: 'redis', skills: [1], gpu: 'yes', colour: 'red' });
    assert.ok(list.some((e) => e === 'services must be an array'), list.join('\n'));
    assert.ok(list.some((e) => e === 'skills[0] must be a string'));
    assert.ok(list.some((e) => e === 'gpu must be a boolean'));
    assert.ok(list.some((e) => /unknown field "colour"/.test(e)));
  });

  test('a body that is not a JSON object is refused', async () => {
    assert.deepEqual(await errors([1, 2]), ['the body must be a JSON object']);
    const bad = await apiError(await validate('{"services": ['), 400, 'VALIDATION_ERROR');
    assert.match(bad.message, /not valid JSON/);
    const noType = await apiError(await server.post('/api/v1/validate', '{}', { 'Content-Type': 'text/plain' }), 400, 'VALIDATION_ERROR');
    assert.match(noType.details.errors[0], /Content-Type: application\/json/);
  });

  test('schema problems and catalogue problems come back together', async () => {
    const list = await errors({ name: 'Bad Name', services: ['postgress'], skills: ['web-research'] });
    assert.ok(list.some((e) => /^name must be 1 to 63 characters/.test(e)), list.join('\n'));
    assert.ok(list.includes('unknown service "postgress" (did you mean "postgresql"?)'));
    assert.ok(list.includes('skill pack "web-research" needs service "searxng": add it to services'));
  });

  test('more than 200 ids in a list is refused', async () => {
    const list = await errors({ services: Array.from({ length: 201 }, (_, i) => `s${i}`) });
    assert.ok(list.some((e) => /services must hold at most 200 items/.test(e)), list.join('\n'));
  });
});

describe('body size', () => {
  test('a body over 64 KiB is 413 with the envelope', async () => {
    const res = await validate({ services: ['x'.repeat(70 * 1024)] });
    const body = await res.json() as { ok: boolean; error: { code: string; details: { errors: string[] } } };
    assert.equal(res.status, 413);
    assert.equal(body.ok, false);
    assert.equal(body.error.code, 'VALIDATION_ERROR');
    assert.match(body.error.details.errors[0], /65536-byte limit/);
  });
});
