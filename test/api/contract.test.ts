// Ties the parts that describe the API to the behaviour: real responses against
// schemas/api-responses.schema.json, the OpenAPI document against the route table, and every error,
// warning and loader rule code against docs/errors.md.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { API_ERRORS, WARNINGS } from '../../src/errors.js';
import { LOAD_RULES } from '../../src/catalogue/problems.js';
import { REPO_ROOT } from '../../src/config.js';
import { Ajv } from 'ajv';
import { SCHEMA_DIR } from '../../src/schemas.js';
import { okData, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const responsesAjv = new Ajv({ allErrors: true, strict: false });
responsesAjv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMA_DIR, 'api-responses.schema.json'), 'utf8')));

function assertMatches(def: string, data: unknown): void {
  const check = responsesAjv.compile({ $ref: `https://stackwright.dev/schemas/api-responses.schema.json#/$defs/${def}` });
  assert.ok(check(data), `${def}: ${JSON.stringify(check.errors)}`);
}

describe('responses match schemas/api-responses.schema.json', () => {
  const cases: [string, string][] = [
    ['/api/v1/health', 'health'], ['/api/v1/services', 'serviceList'], ['/api/v1/services/redis', 'service'], ['/api/v1/skills', 'skillPackList'],
    ['/api/v1/presets', 'presetList'], ['/api/v1/presets/full-stack', 'presetDetail'], ['/api/v1/frameworks', 'frameworkList'], ['/api/v1/proxies', 'proxyList'],
  ];
  for (const [url, def] of cases) {
    test(`GET ${url} is ${def}`, async () => assertMatches(def, await okData(await server.get(url))));
  }
  test('POST /validate is validation, POST /generate is bundle', async () => {
    assertMatches('validation', await okData(await server.post('/api/v1/validate', { services: ['redis', 'valkey'] })));
    assertMatches('bundle', await okData(await server.post('/api/v1/generate', { name: 'x', preset: 'web-agent' })));
  });
  test('errors are the error envelope', async () => {
    for (const res of [await server.get('/nope'), await server.post('/api/v1/validate', { x: 1 }), await server.post('/api/v1/generate', { name: 'a', services: ['redis', 'valkey'] })]) {
      assertMatches('error', await res.json());
    }
  });
});

describe('GET /api/v1/openapi.json', () => {
  test('is the raw OpenAPI document describing every route with its request and response schemas', async () => {
    const res = await server.get('/api/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const doc = await res.json();
    assert.equal(doc.openapi, '3.1.0', 'no envelope around the document');
    assert.equal(doc.info.version, '9.8.7');
    const expected = ['get /api/v1/health', 'get /api/v1/services', 'get /api/v1/services/{id}', 'get /api/v1/skills', 'get /api/v1/presets',
      'get /api/v1/presets/{name}', 'get /api/v1/frameworks', 'get /api/v1/proxies', 'post /api/v1/validate', 'post /api/v1/generate', 'get /api/v1/openapi.json'];
    const actual = Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    assert.deepEqual(actual.sort(), expected.sort());
    const generate = doc.paths['/api/v1/generate'].post;
    assert.deepEqual(generate.security, [{ bearer: [] }]);
    assert.deepEqual(doc.paths['/api/v1/services'].get.security, [], 'public reads say so');
    assert.equal(generate.requestBody.content['application/json'].schema.$ref, '#/components/schemas/GenerateRequest');
    for (const status of ['401', '405', '409', '413', '429', '503']) assert.ok(generate.responses[status], status);
    assert.deepEqual(generate.responses['200'].content['application/gzip'].schema, { type: 'string', format: 'binary', description: generate.responses['200'].content['application/gzip'].schema.description });
    assert.ok(generate.responses['200'].headers['X-RateLimit-Remaining'] && generate.responses['429'].headers['Retry-After'] && generate.responses['401'].headers['WWW-Authenticate']);
    assert.equal(doc.components.schemas.ErrorValidationError.properties.error.properties.details.properties.errors.items.type, 'string');
    assert.equal(doc.components.schemas.ErrorConflict.properties.error.properties.code.const, 'CONFLICT');
    // the request schema is the one the server validates with, refs rewritten to stay inside the document
    assert.equal(doc.components.schemas.GenerateRequest.properties.name.pattern, '^[a-z0-9][a-z0-9_-]*$');
    assert.equal(doc.components.schemas.ValidateRequest.properties.name.$ref, '#/components/schemas/GenerateRequest/properties/name');
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of refs) assert.match(ref, /"#\/components\/(schemas|headers)\//, ref);
  });
});

describe('docs/errors.md', () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8');
  test('documents every API error code with its status', () => {
    for (const [code, { status }] of Object.entries(API_ERRORS)) assert.match(doc, new RegExp(`\\| ${status} \\| \`${code}\``), code);
  });
  test('documents every warning code and loader rule', () => {
    for (const code of Object.keys(WARNINGS)) assert.ok(doc.includes(`| \`${code}\` |`), code);
    for (const rule of Object.keys(LOAD_RULES)) assert.ok(doc.includes(`| \`${rule}\` |`), rule);
  });
});
