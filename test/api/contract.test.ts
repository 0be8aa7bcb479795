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
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMA_DIR } from '../../src/schemas.js';
import { KEY, okData, startServer, type TestServer } from '../support/server.js';
import { raw as rawAt, statusOf } from '../support/raw-http.js';

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

describe('the OpenAPI document and the service agree, operation by operation', () => {
  interface Answer { status: number; headers: Map<string, string>; body: string; contentType: string }
  const fromFetch = async (res: Response): Promise<Answer> => {
    const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
    return { status: res.status, headers: new Map([...res.headers].map(([k, v]) => [k.toLowerCase(), v])), body, contentType: res.headers.get('content-type') ?? '' };
  };
  const fromRaw = (text: string): Answer => {
    const end = text.indexOf('\r\n\r\n');
    const lines = text.slice(0, end).split('\r\n');
    const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    return { status: statusOf(text), headers, body: text.slice(end + 4), contentType: headers.get('content-type') ?? '' };
  };
  // headers a client acts on: each one the service sends must be declared for that status, and the other way round
  const NOTABLE = ['etag', 'cache-control', 'content-disposition', 'retry-after', 'allow', 'www-authenticate', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true, logger: false });

  let doc: any;
  let limited: TestServer;
  before(async () => {
    doc = await (await server.get('/api/v1/openapi.json')).json();
    limited = await startServer({ STACK_RATE_LIMIT_READ: '1', STACK_RATE_LIMIT_WRITE: '1', STACK_RATE_LIMIT_GENERATE: '1' });
  });
  after(() => limited.close());

  /** Checks one real answer against what the document says of that operation and status. */
  function agrees(where: string, op: any, answer: Answer): void {
    const declared = op.responses[String(answer.status)];
    assert.ok(declared, `${where}: ${answer.status} is not declared (declared: ${Object.keys(op.responses).join(', ')})`);
    const headers = Object.fromEntries(Object.entries(declared.headers ?? {}).map(([name, h]: [string, any]) => [name.toLowerCase(), h.$ref ? doc.components.headers[h.$ref.split('/').pop()] : h]));
    for (const [name, header] of Object.entries(headers) as [string, any][]) {
      if (name === 'content-disposition' && !answer.contentType.startsWith('application/gzip')) continue;
      const value = answer.headers.get(name);
      assert.ok(value !== undefined, `${where} ${answer.status}: declares ${name}, the answer has none`);
      if (header.schema.const !== undefined) assert.equal(value, header.schema.const, `${where} ${answer.status}: ${name}`);
      if (header.schema.type === 'integer') assert.match(value, /^\d+$/, `${where} ${answer.status}: ${name}`);
    }
    for (const name of NOTABLE) {
      if (answer.headers.has(name)) assert.ok(headers[name], `${where} ${answer.status}: sends ${name}, the document does not declare it`);
    }
    const media = answer.contentType.split(';')[0];
    if (answer.status === 304) return assert.equal(answer.body, '', `${where}: a 304 has no body`);
    const schema = declared.content?.[media]?.schema;
    assert.ok(schema, `${where} ${answer.status}: ${media} is not declared`);
    if (media !== 'application/json') return;
    const check = ajv.compile({ components: doc.components, ...schema });
    assert.ok(check(JSON.parse(answer.body)), `${where} ${answer.status}: ${JSON.stringify(check.errors).slice(0, 500)}`);
  }

  const concrete = (path: string) => path.replace('{id}', 'redis').replace('{name}', 'full-stack');
  const BODIES: Record<string, unknown> = { '/api/v1/validate': { services: ['redis'] }, '/api/v1/generate': { name: 'contract', preset: 'web-agent' } };

  test('every operation: its success, 304 where declared (and never where not), and the errors each can meet', async () => {
    const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method: method.toUpperCase(), op })));
    assert.equal(operations.length, 11);
    const raw = (text: string) => rawAt(server.port, text).then((a) => fromRaw(a.text));
    for (const { path, method, op } of operations) {
      const where = `${method} ${path}`;
      const url = concrete(path);
      const auth: Record<string, string> = op.security.length ? { Authorization: `Bearer ${KEY}` } : {};
      const send = (s: TestServer, headers: Record<string, string> = {}, body: unknown = BODIES[url]) => (method === 'GET'
        ? s.get(url, { ...auth, ...headers })
        : fetch(s.url + url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }));

      const ok = await fromFetch(await send(server));
      assert.equal(ok.status, 200, where);
      agrees(where, op, ok);
      if (method === 'GET') {
        const again = await fromFetch(await send(server, { 'If-None-Match': ok.headers.get('etag') ?? '*' }));
        if (op.responses['304']) {
          assert.equal(again.status, 304, `${where}: declares 304, the ETag sent back gets ${again.status}`);
        } else {
          assert.equal(again.status, 200, `${where}: declares no 304, yet If-None-Match got ${again.status}`);
        }
        agrees(where, op, again);
      } else {
        const tarOrNot = await fromFetch(await send(server, {}, { ...BODIES[url] as object, format: 'tar' }));
        agrees(`${where} (format tar)`, op, tarOrNot);
        agrees(where, op, await fromFetch(await send(server, {}, '{"unknownField":1}')));
        agrees(where, op, await raw(`POST ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n`));
      }
      if (op.security.length) agrees(where, op, await fromFetch(await send(server, { Authorization: 'Bearer wrong-key-wrong-key-wrong-key' })));
      if (path.includes('{')) agrees(where, op, await fromFetch(await server.get(path.replace(/\{\w+\}/, 'nope-nope'), auth)));
      if (op.parameters?.some((p: any) => p.in === 'query')) agrees(where, op, await fromFetch(await server.get(`${url}?unknown=1`)));
      if (url === '/api/v1/generate') agrees(where, op, await fromFetch(await send(server, {}, { name: 'c', services: ['redis', 'valkey'] })));
      agrees(where, op, await fromFetch(await fetch(server.url + url, { method: 'DELETE' })));
      // what the HTTP parser, or Node on its behalf, refuses on the way to any operation
      agrees(where, op, await raw(`${method} ${url}?a b HTTP/1.1\r\nHost: x\r\n\r\n`));
      agrees(where, op, await raw(`${method} ${url} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`));
      agrees(where, op, await raw(`${method} ${url} HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n`));
      // a spent bucket (each operation's second call on a server that allows one a window)
      await (await send(limited)).arrayBuffer();
      const spent = await fromFetch(await send(limited));
      assert.equal(spent.status, 429, where);
      agrees(where, op, spent);
    }
  });
});
