// Hostile input (issue 24): bodies of any shape, oversized uploads, odd request targets. Real server,
// real sockets; every loop is bounded; counts and states only.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MAX_JSON_DEPTH } from '../../src/json-nesting.js';
import { apiError, KEY, okData, shippedCatalogue, startServer, type TestServer } from '../support/server.js';
import { bodyOf, headerOf, raw as rawAt, statusOf } from '../support/raw-http.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const raw = (bytes: Parameters<typeof rawAt>[1]) => rawAt(server.port, bytes);
const get = (target: string) => raw(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);

const ENDPOINTS = ['/api/v1/validate', '/api/v1/generate'];
const nested = (depth: number, inner = '"x"') => '['.repeat(depth) + inner + ']'.repeat(depth);

describe('a domain that is not a string', () => {
  // the shapes of the fuzz run's ten 500s, with a proxy that refuses domains over plain HTTP
  const shapes: [string, string][] = [
    ['an object with its own toString', '{"toString":{"a":1}}'],
    ['an object with toString and valueOf', '{"toString":{},"valueOf":{}}'],
    ['an array', '["example.com"]'],
    [`an array nested ${MAX_JSON_DEPTH - 2} deep (within the nesting limit)`, nested(MAX_JSON_DEPTH - 2)],
    ['a number', '42'],
  ];
  for (const endpoint of ENDPOINTS) {
    for (const [what, domain] of shapes) {
      test(`${endpoint}: ${what} is 400 VALIDATION_ERROR naming domain`, async () => {
        const res = await server.post(endpoint, `{"name":"d","preset":"web-agent","proxy":"nginx","domain":${domain}}`);
        const error = await apiError(res, 400, 'VALIDATION_ERROR');
        assert.deepEqual(error.details.errors, ['domain must be a string']);
      });
    }
  }

  test('a string domain with nginx is read as a domain (nginx serves HTTPS through its ACME module)', async () => {
    const data = await okData(await server.post('/api/v1/validate', { preset: 'web-agent', proxy: 'nginx', domain: 'example.com' }));
    assert.equal(data.valid, true);
  });
});

describe('nesting is bounded before anything walks the body', () => {
  for (const endpoint of ENDPOINTS) {
    test(`${endpoint}: a domain nested 5,000 deep is 400 naming the limit`, async () => {
      const res = await server.post(endpoint, `{"name":"d","preset":"web-agent","proxy":"nginx","domain":${nested(5000)}}`);
      const error = await apiError(res, 400, 'VALIDATION_ERROR');
      assert.match(error.message, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
    });

    test(`${endpoint}: objects nested 10,000 deep under an unknown field are 400 naming the limit`, async () => {
      const res = await server.post(endpoint, `{"name":"d","x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`);
      assert.match((await apiError(res, 400, 'VALIDATION_ERROR')).message, new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
    });
  }

  test('brackets inside strings do not count as nesting', async () => {
    const res = await server.post('/api/v1/validate', `{"preset":"${'['.repeat(60)}"}`);
    const error = await apiError(res, 400, 'VALIDATION_ERROR');
    assert.match(error.details.errors.join('\n'), /unknown preset/);
  });

  test('exactly the limit is parsed (and refused by the schema, naming the field)', async () => {
    const res = await server.post('/api/v1/validate', `{"services":${nested(MAX_JSON_DEPTH - 1)}}`);
    const error = await apiError(res, 400, 'VALIDATION_ERROR');
    assert.match(error.details.errors.join('\n'), /^services\[0\] must be a string$/m);
  });
});

// ---- property test: random JSON and random mutations of valid requests ----

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIELDS = ['name', 'preset', 'services', 'skills', 'proxy', 'domain', 'gpu', 'platform', 'primaryFramework', 'companionFrameworks', 'deploymentType', 'hardened', 'format'];
const HOSTILE_STRINGS = ['', ' ', 'a', 'UPPER', 'web-agent ', '$(touch /tmp/x)', '`id`', '"\'', 'a\r\nb', 'x\u0000y', ': #&anchor', '!!python/object', '{{name}}', '<%= it %>', '../../etc/passwd',
  'example.com', 'localhost', 'a.b', '-a.com', '\u202eevil', 'zero\u200bwidth', '\ud800', 'é'.repeat(70), 'x'.repeat(300), '__proto__', 'constructor', 'toString', 'none', 'tar', 'json',
  'linux/arm64', 'bare-metal', 'docker', '1e309'];

function fuzzer(random: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const catalogue = shippedCatalogue();
  const ids = {
    preset: [...catalogue.presets.keys()], services: [...catalogue.services.keys()], skills: [...catalogue.skillPacks.keys()],
    proxy: ['none', ...catalogue.proxies.keys()], frameworks: [...catalogue.frameworks.keys()],
  };
  const someOf = (list: string[]) => Array.from({ length: Math.floor(random() * 4) }, () => pick(list));

  const value = (depth: number): unknown => {
    const r = random();
    if (depth <= 0 || r < 0.45) {
      return pick<() => unknown>([
        () => null, () => random() < 0.5, () => Math.floor(random() * 2000) - 1000, () => pick([0, -0, 1.5, 1e308, -1e308, 2 ** 53]),
        () => pick(HOSTILE_STRINGS), () => pick([...ids.services, ...ids.preset, ...ids.proxy]),
      ])();
    }
    if (r < 0.7) return Array.from({ length: Math.floor(random() * 5) }, () => value(depth - 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 5); i > 0; i--) object[pick([...FIELDS, ...HOSTILE_STRINGS])] = value(depth - 1);
    return object;
  };

  const validRequest = (): Record<string, unknown> => {
    const request: Record<string, unknown> = { name: `fuzz-${Math.floor(random() * 50)}` };
    if (random() < 0.5) request.preset = pick(ids.preset);
    else request.services = someOf(ids.services);
    // nginx refuses a domain, so the domain is read when the request is checked: the fuzz run's 500s
    if (random() < 0.5) request.proxy = random() < 0.5 ? 'nginx' : pick(ids.proxy);
    if (random() < 0.3) request.domain = pick(['example.com', 'localhost', 'stack.example.org']);
    if (random() < 0.2) request.companionFrameworks = someOf(ids.frameworks);
    if (random() < 0.2) request.gpu = random() < 0.5;
    if (random() < 0.2) request.deploymentType = pick(['docker', 'bare-metal']);
    if (random() < 0.1) request.format = 'tar';
    return request;
  };

  const mutate = (request: Record<string, unknown>): string => {
    for (let n = Math.floor(random() * 4); n > 0; n--) {
      const field = random() < 0.25 ? 'domain' : pick(FIELDS);
      switch (Math.floor(random() * 7)) {
        case 0: request[field] = value(3); break;
        case 1: delete request[field]; break;
        case 2: request[pick(HOSTILE_STRINGS)] = value(2); break;
        case 3: request[field] = { toString: value(1), valueOf: value(1) }; break;
        case 4: if (Array.isArray(request[field])) (request[field] as unknown[]).push(value(2)); else request[field] = [request[field]]; break;
        case 5: request[field] = pick(HOSTILE_STRINGS); break;
        default: request[field] = JSON.parse(nested(1 + Math.floor(random() * (MAX_JSON_DEPTH - 2)), JSON.stringify(pick(HOSTILE_STRINGS))));
      }
    }
    let text = JSON.stringify(request);
    // now and then the text itself: nested past the limit, cut short, or a stray byte
    const r = random();
    if (r < 0.05) text = text.replace(/}$/, `,"deep":${nested(MAX_JSON_DEPTH + Math.floor(random() * 5000))}}`);
    else if (r < 0.1) text = text.slice(0, Math.floor(random() * text.length));
    else if (r < 0.13) text = text.replace(/:/, ': \u0001');
    return text;
  };

  return { body: () => (random() < 0.3 ? JSON.stringify(value(4)) : mutate(validRequest())) };
}

describe('property: any body gets 2xx or 4xx with the envelope', () => {
  const CASES = 2_000;
  const seed = Number(process.env.STACK_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

  test(`${CASES} random and mutated bodies on validate and generate (seed ${seed}; replay with STACK_FUZZ_SEED=${seed})`, async (t) => {
    const { body } = fuzzer(prng(seed));
    const failures: string[] = [];
    const statuses: Record<number, number> = {};
    const check = async (endpoint: string, text: string) => {
      const res = await fetch(server.url + endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` }, body: text });
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      const problem = (what: string) => failures.push(`${endpoint} ${res.status} ${what}: ${text.slice(0, 300)}`);
      if (!(res.status >= 200 && res.status < 300) && !(res.status >= 400 && res.status < 500)) problem('status outside 2xx/4xx');
      if (!res.headers.get('x-ratelimit-limit')) problem('no X-RateLimit-Limit');
      if (res.headers.get('content-type') === 'application/gzip') {
        if (res.status !== 200) problem('a gzip answer that is not 200');
        await res.arrayBuffer();
        return;
      }
      const envelope = await res.json().catch(() => undefined) as { ok?: boolean; data?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
      if (res.status < 300 ? envelope?.ok !== true || envelope.data === undefined
        : envelope?.ok !== false || typeof envelope.error?.code !== 'string' || typeof envelope.error.message !== 'string' || !envelope.error.message) {
        problem('not the envelope');
      }
      if (res.status === 400 && envelope?.error?.code !== 'VALIDATION_ERROR') problem('a 400 that is not VALIDATION_ERROR');
    };
    // four at a time, so the generations overlap as they would in service
    const bodies = Array.from({ length: CASES }, body);
    for (let i = 0; i < bodies.length; i += 4) {
      await Promise.all(bodies.slice(i, i + 4).flatMap((text) => ENDPOINTS.map((endpoint) => check(endpoint, text))));
    }
    t.diagnostic(`seed ${seed}: statuses ${JSON.stringify(statuses)}`);
    assert.deepEqual(failures.slice(0, 10), [], `seed ${seed} (replay with STACK_FUZZ_SEED=${seed}); ${failures.length} failures; statuses ${JSON.stringify(statuses)}`);
    // the generator reaches both sides: accepted and refused bodies
    assert.ok((statuses[200] ?? 0) > 0 && (statuses[400] ?? 0) > 0, `seed ${seed}: statuses ${JSON.stringify(statuses)}`);
  });
});

describe('an oversized upload is answered 413, never reset', () => {
  /** An 8 MiB chunked upload, written as fast as the socket takes it. */
  const chunkedUpload = (socket: net.Socket) => {
    socket.write(`POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    for (let i = 0; i < 128; i++) socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
    socket.write('0\r\n\r\n');
  };

  test('40 tries of 8 MiB chunked uploads: all 40 get 413 with the envelope and Connection: close', async () => {
    const results = [];
    for (let i = 0; i < 40; i++) results.push(await raw(chunkedUpload));
    const answers = results.map((r) => (r.error ? `reset (${r.error})` : `${statusOf(r.text)} ${headerOf(r.text, 'Connection')}`));
    assert.deepEqual(answers, Array(40).fill('413 close'));
    const body = bodyOf(results[0].text);
    assert.equal(body.error.code, 'VALIDATION_ERROR');
    assert.match(body.error.message, /larger than 65536 bytes/);
    assert.ok(headerOf(results[0].text, 'X-RateLimit-Limit'));
  });

  test('a declared Content-Length over the limit, with the body on its way: 413, not reset', async () => {
    const results = [];
    for (let i = 0; i < 10; i++) {
      results.push(await raw((socket) => {
        socket.write(`POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`);
        socket.write(Buffer.alloc(2 * 1024 * 1024, 0x20));
      }));
    }
    assert.deepEqual(results.map((r) => r.error ?? statusOf(r.text)), Array(10).fill(413));
  });
});

describe('request targets', () => {
  test('absolute form (RFC 9112 §3.2.2) is accepted: GET http://host/api/v1/health', async () => {
    const { text } = await get('http://stack.example.com/api/v1/health');
    assert.equal(statusOf(text), 200);
    assert.equal(bodyOf(text).data.status, 'ok');
    assert.ok(headerOf(text, 'X-RateLimit-Remaining'));
  });

  test('absolute form with a port and a query reaches the same endpoint', async () => {
    const { text } = await get('http://127.0.0.1:9/api/v1/services?category=database');
    assert.equal(statusOf(text), 200);
    assert.ok(bodyOf(text).data.services.length > 0);
  });

  test('absolute form keeps the dot-segment rule', async () => {
    const { text } = await get('http://x/api/v1/presets/%2e');
    assert.equal(statusOf(text), 404);
  });
});

describe('every answer carries X-RateLimit-*', () => {
  // each way an answer leaves the server, sent raw (a client library would resolve dot segments itself)
  const cases: [what: string, head: string, status: number, body?: string][] = [
    ['a %2e segment', 'GET /api/v1/presets/%2e HTTP/1.1', 404],
    ['a %2e%2e segment', 'GET /api/v1/services/%2e%2e HTTP/1.1', 404],
    ['a raw . segment', 'GET /api/v1/presets/. HTTP/1.1', 404],
    ['a .. segment in a POST', 'POST /api/v1/x/../generate HTTP/1.1', 404],
    ['an unknown path', 'GET /nothing HTTP/1.1', 404],
    ['a wrong method', 'DELETE /api/v1/services HTTP/1.1', 405],
    ['GET /livez', 'GET /livez HTTP/1.1', 200],
    ['GET /readyz', 'GET /readyz HTTP/1.1', 200],
    ['POST /livez', 'POST /livez HTTP/1.1', 405],
    ['the web page', 'GET / HTTP/1.1', 200],
    ['a web asset that is not there', 'GET /assets/nothing.js HTTP/1.1', 404],
    ['/mcp without a key', 'POST /mcp HTTP/1.1', 401],
    ['GET /mcp with a key', `GET /mcp HTTP/1.1\r\nAuthorization: Bearer ${KEY}`, 405],
    ['/mcp with a body that is not JSON', `POST /mcp HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: text/plain\r\nContent-Length: 1`, 400, 'x'],
    ['a body nested past the limit', `POST /api/v1/validate HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${nested(100).length}`, 400, nested(100)],
    ['a body over the size limit', `POST /api/v1/validate HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100000000`, 413],
    // refused by Node's HTTP parser, before there is a request to read a key from
    ['headers too large for the parser', `GET /api/v1/health HTTP/1.1\r\nX-Padding: ${'a'.repeat(20_000)}`, 431],
    ['a raw space in the target', 'GET /api/v1/services?tag=a b HTTP/1.1', 400],
    ['Content-Length beside Transfer-Encoding', 'POST /api/v1/validate HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked', 400, '{}'],
    ['a request line that is not HTTP', 'HELLO', 400],
    // answered by Node itself unless the server takes them over
    ['an Expect other than 100-continue', 'GET /api/v1/health HTTP/1.1\r\nExpect: teapot', 417],
  ];
  for (const [what, head, status, body = ''] of cases) {
    test(`${what}: ${status} with X-RateLimit-Limit, -Remaining and -Reset`, async () => {
      const { text } = await raw(`${head}\r\nHost: x\r\nConnection: close\r\n\r\n${body}`);
      assert.equal(statusOf(text), status, text.slice(0, 200));
      for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
        assert.match(headerOf(text, name) ?? '', /^\d+$/, `${name} on ${what}`);
      }
    });
  }

  test('an HTTP/1.1 request without Host: 400 with the envelope and X-RateLimit-*', async () => {
    const { text } = await raw('GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.equal(statusOf(text), 400);
    assert.match(bodyOf(text).error.message, /needs a Host header/);
    for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) assert.match(headerOf(text, name) ?? '', /^\d+$/, name);
    // HTTP/1.0 has no Host to require
    assert.equal(statusOf((await raw('GET /api/v1/health HTTP/1.0\r\n\r\n')).text), 200);
  });

  test('a request the parser refuses shows the read bucket of its address, and spends nothing', async () => {
    const before = Number(headerOf((await get('/livez')).text, 'X-RateLimit-Remaining'));
    await get('/api/v1/health');
    const refused = await raw(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.equal(statusOf(refused.text), 431);
    assert.equal(Number(headerOf(refused.text, 'X-RateLimit-Remaining')), before - 1, 'the read just counted for this address, nothing for the 431');
    assert.equal(headerOf(refused.text, 'X-RateLimit-Limit'), String(server.config.rateLimits.read));
    assert.equal(Number(headerOf((await get('/livez')).text, 'X-RateLimit-Remaining')), before - 1);
  });

  test('an answer that spends no token shows the read bucket as it stands', async () => {
    const probe = await get('/livez');
    const first = Number(headerOf(probe.text, 'X-RateLimit-Remaining'));
    const again = await get('/livez');
    assert.equal(Number(headerOf(again.text, 'X-RateLimit-Remaining')), first, 'a probe is not counted');
    const read = await get('/api/v1/health');
    assert.ok(Number(headerOf(read.text, 'X-RateLimit-Remaining')) < first, 'a read is');
  });
});
