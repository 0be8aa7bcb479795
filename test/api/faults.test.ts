// The server at the edges (issue 10, review server-under-faults): a real server process, real sockets
// and real signals; counts and orderings only, no timing assertions.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startServer, type TestServer } from '../support/server.js';
import { spawnServer, stopServer, waitForOutput } from '../support/process.js';
import { KEY } from '../support/keys.js';
import { bodyOf, headerOf, raw, statusOf } from '../support/raw-http.js';

describe('requests the HTTP parser rejects get the JSON envelope', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(() => server.close());

  test('a raw space in the request target: 400 VALIDATION_ERROR', async () => {
    const { text } = await raw(server.port, 'GET /api/v1/services?tag=a b HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.deepEqual(bodyOf(text).error.code, 'VALIDATION_ERROR');
    assert.match(text, /\r\nConnection: close\r\n/);
  });

  test('oversized headers: 431 HEADERS_TOO_LARGE', async () => {
    const { text } = await raw(server.port, `GET /api/v1/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(text, /^HTTP\/1\.1 431 /);
    assert.equal(bodyOf(text).error.code, 'HEADERS_TOO_LARGE');
  });

  test('Content-Length and Transfer-Encoding together: 400 with the envelope', async () => {
    const { text } = await raw(server.port, 'POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}');
    assert.match(text, /^HTTP\/1\.1 400 /);
    assert.equal(bodyOf(text).ok, false);
  });
});

describe('generation is bounded', () => {
  test('beyond the generations already waiting, a generate gets 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const server = await startServer({ STACK_GENERATE_QUEUE: '1' });
    // generations are held until the test lets them go, so the queue fills without depending on speed
    const generator = server.engine.current.generator;
    const real = generator.generate.bind(generator);
    const started: (() => void)[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => { release = r; });
    generator.generate = ((request: Parameters<typeof real>[0]) => new Promise((resolve) => {
      started.push(() => undefined);
      void released.then(() => resolve(real(request)));
    })) as unknown as typeof generator.generate;
    try {
      // two run (the queue's concurrency) and are held there
      const running = [0, 1].map((i) => server.post('/api/v1/generate', { name: `held-${i}`, preset: 'web-agent' }));
      while (started.length < 2) await new Promise((r) => setTimeout(r, 5));
      // of three more, one may wait (STACK_GENERATE_QUEUE=1) and two are refused at once, whatever their order
      const answered: Response[] = [];
      const more = [2, 3, 4].map((i) => server.post('/api/v1/generate', { name: `burst-${i}`, preset: 'web-agent' }).then((r) => { answered.push(r); return r; }));
      while (answered.length < 2) await new Promise((r) => setTimeout(r, 5));
      for (const r of answered) {
        assert.equal(r.status, 503);
        assert.equal(r.headers.get('retry-after'), '1');
        assert.equal((await r.json() as { error: { code: string } }).error.code, 'SERVICE_UNAVAILABLE');
      }
      release();
      assert.deepEqual((await Promise.all(running)).map((r) => r.status), [200, 200]);
      assert.deepEqual((await Promise.all(more)).map((r) => r.status).sort(), [200, 503, 503], 'the waiting one is answered once a turn is free');
      // and once the burst is over, generating works again
      assert.equal((await server.post('/api/v1/generate', { name: 'after', preset: 'web-agent' })).status, 200);
    } finally {
      release();
      await server.close();
    }
  });
});

describe('Authorization follows RFC 9110', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(() => server.close());
  const key = KEY;

  test('the scheme is case-insensitive and one or more spaces may follow it', async () => {
    for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER   ${key}`]) {
      const res = await server.post('/api/v1/validate', {}, { Authorization: header });
      assert.equal(res.status, 200, header);
    }
  });

  test('a tab or a no-break space is not a separator', async () => {
    for (const header of [`Bearer\t${key}`, `Bearer\u00a0${key}`]) {
      const res = await server.post('/api/v1/validate', {}, { Authorization: header });
      assert.equal(res.status, 401, JSON.stringify(header));
    }
  });
});

describe('the server process under faults', () => {
  test('SIGTERM answers every request already sent on fresh connections, then exits 0', async () => {
    const { child, port } = await spawnServer({ STACK_SHUTDOWN_GRACE_MS: '1500' });
    const request = 'GET /api/v1/presets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    const pending = Array.from({ length: 50 }, () => raw(port, request));
    // the signal follows the requests at once: they are accepted but most are not yet read
    setImmediate(() => child.kill('SIGTERM'));
    const results = await Promise.all(pending);
    const exit = await new Promise<number | null>((r) => (child.exitCode !== null ? r(child.exitCode) : child.once('exit', r)));
    assert.deepEqual(results.filter((r) => !/^HTTP\/1\.1 200 /.test(r.text)).map((r) => r.error ?? r.text.slice(0, 40)), [], 'every request answered 200');
    assert.equal(exit, 0);
  });

  test('a client that disconnects mid-body is not logged as an error', async () => {
    const { child, port, output } = await spawnServer();
    await new Promise<void>((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1' }, () => {
        socket.write(`POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
        setTimeout(() => { socket.destroy(); resolve(); }, 200);
      });
    });
    // a request after the abort shows the server went on, and flushes any log of the abort before it
    const after = await raw(port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(after.text, /^HTTP\/1\.1 200 /);
    // the aborted request's token stays spent: the next write is the second of the window (limit 20)
    const next = await raw(port, `POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    assert.match(next.text, /\r\nX-RateLimit-Remaining: 18\r\n/i);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    assert.doesNotMatch(output(), /unexpected error|INTERNAL_ERROR|aborted\n\s+at /);
  });

  test('silent connections from one address cannot starve another, nor that address itself', async () => {
    const { child, port } = await spawnServer({ STACK_MAX_CONNECTIONS_PER_ADDRESS: '20' });
    const silent: net.Socket[] = [];
    let closedByServer = 0;
    await Promise.all(Array.from({ length: 60 }, () => new Promise<void>((resolve) => {
      const s = net.connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' }, () => resolve());
      s.on('close', () => { closedByServer++; });
      s.on('error', () => resolve());
      silent.push(s);
    })));
    const probes = await Promise.all(Array.from({ length: 20 }, () => raw(port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')));
    assert.equal(probes.filter((p) => /^HTTP\/1\.1 200 /.test(p.text)).length, 20);
    // from the address holding the silent connections: 503 with Retry-After while they are fresh, then a
    // silent one is closed to make room (bounded tries; no timing asserted)
    const answers: string[] = [];
    for (let i = 0; i < 100 && !answers.includes('200'); i++) {
      const { text, error } = await raw(port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.2' });
      answers.push(error ?? `${statusOf(text)}${statusOf(text) === 503 ? ` Retry-After ${headerOf(text, 'Retry-After')}` : ''}`);
      if (!answers.includes('200')) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(answers.at(-1), '200', answers.join(', '));
    assert.deepEqual(answers.filter((a) => a !== '200' && a !== '503 Retry-After 1'), [], 'the others were 503 with Retry-After');
    assert.ok(closedByServer >= 1, 'a silent connection was closed to make room');
    for (const s of silent) s.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
});

describe('one client address for everyone (a reverse proxy in front): the per-address cap answers, never resets', () => {
  const generate = (i: number) => {
    const body = JSON.stringify({ name: `burst-${i}`, preset: 'web-agent' });
    return `POST /api/v1/generate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
  };
  /** "200", "503" (with Retry-After and the envelope), or what else came: a reset, a close without answer, another status. */
  const outcome = ({ text, error }: { text: string; error?: string }) => {
    if (error) return `reset (${error})`;
    if (!text) return 'closed without an answer';
    const status = statusOf(text);
    if (status === 503) {
      const ok = headerOf(text, 'Retry-After') === '1' && bodyOf(text).error?.code === 'SERVICE_UNAVAILABLE' && /^\d+$/.test(headerOf(text, 'X-RateLimit-Limit') ?? '');
      return ok ? '503' : `503 without Retry-After, envelope or X-RateLimit-*: ${text.slice(0, 300)}`;
    }
    return String(status);
  };
  /**
   * Opens `n` connections from one address and, once every one is connected, sends `request(i)` on each:
   * all of them are open at the server at once, as behind a proxy under load.
   */
  const connectAllThenSend = async (port: number, n: number, request: (i: number) => string, onSent?: () => void) => {
    const connections = Array.from({ length: n }, () => {
      const socket = net.connect({ port, host: '127.0.0.1' });
      let text = '';
      socket.on('data', (c) => { text += c.toString('latin1'); });
      const answer = new Promise<{ text: string; error?: string }>((resolve) => {
        socket.on('error', (e: NodeJS.ErrnoException) => resolve({ text, error: e.code }));
        socket.on('close', () => resolve({ text }));
      });
      const connected = new Promise<void>((resolve) => { socket.once('connect', resolve); void answer.then(() => resolve()); });
      return { socket, answer, connected };
    });
    await Promise.all(connections.map((c) => c.connected));
    // a probe from another address, connected after them, is accepted after them: once it is answered,
    // the server holds all n connections (the state the test needs, without waiting on a clock)
    assert.match((await raw(port, 'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', { localAddress: '127.0.0.2' })).text, /^HTTP\/1\.1 200 /);
    // connections are closed to make room only as others are admitted (src/http/connections.ts, rule 1: one
    // silent for a second); every one is admitted by now, so the server's count of those closes is final. On a
    // loaded box connecting them all takes that long, and the first ones, silent until then, may be closed.
    const evicted = await closedToMakeRoom(port);
    connections.forEach((c, i) => { if (c.socket.writable) c.socket.write(request(i)); });
    onSent?.();
    return { results: await Promise.all(connections.map((c) => c.answer)), evicted };
  };
  /** The server's count of connections closed to make room (GET /metrics from another address). */
  const closedToMakeRoom = async (port: number): Promise<number> => {
    const { text } = await raw(port, `GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`, { localAddress: '127.0.0.2' });
    const line = /^stackwright_connection_cap_actions_total\{action="closed_idle"\} (\d+)$/m.exec(text);
    assert.ok(line, `GET /metrics has the connection-cap count: ${text.slice(0, 300)}`);
    return Number(line[1]);
  };
  /** Every outcome is 200 or 503, but for as many closes without an answer as the server counted closing to make room. */
  const assertAnsweredOrMadeRoom = (counts: Record<string, number>, evicted: number) => {
    const closed = counts['closed without an answer'] ?? 0;
    assert.ok(closed <= evicted, `${closed} connections closed without an answer, ${evicted} closed to make room: ${JSON.stringify(counts)}`);
    assert.deepEqual(Object.keys(counts).filter((o) => o !== '200' && o !== '503' && o !== 'closed without an answer'), [], JSON.stringify(counts));
  };
  const tally = (outcomes: string[]) => outcomes.reduce<Record<string, number>>((counts, o) => ({ ...counts, [o]: (counts[o] ?? 0) + 1 }), {});

  test('150 concurrent generates from one address: 0 resets, each 200 or 503 with Retry-After (or counted as closed to make room)', async (t) => {
    const server = await spawnServer({ STACK_RATE_LIMIT_GENERATE: '100000' });
    try {
      const { results, evicted } = await connectAllThenSend(server.port, 150, generate);
      const counts = tally(results.map(outcome));
      t.diagnostic(`outcomes: ${JSON.stringify(counts)}; closed to make room while connecting: ${evicted}`);
      assertAnsweredOrMadeRoom(counts, evicted);
      assert.ok((counts['200'] ?? 0) >= 100, `at least the per-address cap of 100 generated: ${JSON.stringify(counts)}`);
      // and the address is not locked out afterwards
      assert.equal(outcome(await raw(server.port, generate(150))), '200');
    } finally {
      assert.equal(await stopServer(server), 0);
    }
  });

  test('200 requests in flight from one address at SIGTERM: every one answered (200, or 503 past the cap; or counted as closed to make room), then exit 0', async (t) => {
    const server = await spawnServer({ STACK_SHUTDOWN_GRACE_MS: '1500' });
    const request = 'GET /api/v1/presets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
    // the signal follows the requests at once: they are accepted but most are not yet read
    const { results, evicted } = await connectAllThenSend(server.port, 200, () => request, () => setImmediate(() => server.child.kill('SIGTERM')));
    const exit = await new Promise<number | null>((r) => (server.child.exitCode !== null ? r(server.child.exitCode) : server.child.once('exit', r)));
    const counts = tally(results.map(outcome));
    t.diagnostic(`outcomes: ${JSON.stringify(counts)}; closed to make room while connecting: ${evicted}`);
    assertAnsweredOrMadeRoom(counts, evicted);
    assert.equal(exit, 0);
  });

  test('100 slow uploads from one address: /livez and /readyz from it are answered, and a request gets in by closing a slow upload (408)', async (t) => {
    const server = await spawnServer({ STACK_MAX_CONNECTIONS_PER_ADDRESS: '100', STACK_RATE_LIMIT_WRITE: '100000' });
    // each sends one byte of its 1,000-byte body now and then: far below STACK_MIN_BODY_RATE (500 bytes/s)
    const slow: { socket: net.Socket; answer: Promise<{ text: string; error?: string }> }[] = [];
    const drips = new Set<NodeJS.Timeout>();
    for (let i = 0; i < 100; i++) {
      const socket = net.connect({ port: server.port, host: '127.0.0.1' });
      let text = '';
      const answer = new Promise<{ text: string; error?: string }>((resolve) => {
        socket.on('data', (c) => { text += c.toString('latin1'); });
        socket.on('error', (e: NodeJS.ErrnoException) => resolve({ text, error: e.code }));
        socket.on('close', () => resolve({ text }));
      });
      socket.on('connect', () => {
        socket.write(`POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n `);
        const drip = setInterval(() => { if (socket.writable) socket.write(' '); }, 300);
        drips.add(drip);
        socket.once('close', () => { clearInterval(drip); drips.delete(drip); });
      });
      slow.push({ socket, answer });
    }
    try {
      const probes: string[] = [];
      const requests: string[] = [];
      // bounded: probes all along; the API request is repeated until a slow upload makes room for it
      for (let i = 0; i < 60 && !requests.includes('200'); i++) {
        for (const probe of ['/livez', '/readyz']) probes.push(outcome(await raw(server.port, `GET ${probe} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)));
        requests.push(outcome(await raw(server.port, 'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')));
        if (!requests.includes('200')) await new Promise((r) => setTimeout(r, 200));
      }
      t.diagnostic(`probes: ${JSON.stringify(tally(probes))}; API requests: ${JSON.stringify(tally(requests))}`);
      assert.deepEqual(tally(probes), { 200: probes.length }, 'every probe answered 200');
      assert.equal(requests.at(-1), '200', `an API request got in: ${requests.join(', ')}`);
      assert.deepEqual(requests.filter((r) => r !== '200' && r !== '503'), [], 'the others were 503 with Retry-After');
      // the slow upload closed to make room was answered 408 with the envelope, not reset
      for (const s of slow) s.socket.end();
      const answers = await Promise.all(slow.map((s) => s.answer));
      t.diagnostic(`slow uploads: ${JSON.stringify(tally(answers.map((a) => a.error ?? (a.text ? a.text.slice(0, 40) : 'closed without an answer'))))}`);
      const refused = answers.filter((a) => statusOf(a.text) === 408);
      assert.ok(refused.length >= 1, 'at least one slow upload was answered 408');
      assert.equal(bodyOf(refused[0].text).error.code, 'REQUEST_TIMEOUT');
      assert.match(bodyOf(refused[0].text).error.message, /slower than 500 bytes a second/);
    } finally {
      for (const drip of drips) clearInterval(drip);
      for (const s of slow) s.socket.destroy();
      assert.equal(await stopServer(server), 0);
    }
  });
});

describe('the open-file limit', () => {
  test('1,100 silent connections against a limit of 256 descriptors: the cap fits under it and every probe is answered', async () => {
    // every connection may come from one address here: only the total cap, fitted under the limit, binds
    const server = await spawnServer({ STACK_MAX_CONNECTIONS_PER_ADDRESS: '100000' }, { openFiles: 256 });
    // the start log says so (on stderr, which may arrive after the listening line)
    await waitForOutput(server, /open-file limit is 256 \(hard 256\), too low for STACK_MAX_CONNECTIONS=1000: at most 192 connections are taken/);
    // a client that holds 1,100 connections without sending a byte, opening each again 1 s after the server closes it
    let holding = true;
    let closedByServer = 0;
    const silent = new Set<net.Socket>();
    const open = () => {
      const socket = net.connect({ port: server.port, host: '127.0.0.1' });
      silent.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        silent.delete(socket);
        if (!holding) return;
        closedByServer++;
        setTimeout(open, 1000).unref();
      });
    };
    for (let i = 0; i < 1100; i++) open();
    // the server makes room by closing the oldest silent connections: at least 1,100 - 192 of them
    for (let i = 0; i < 200 && closedByServer < 1100 - 192; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(closedByServer >= 1100 - 192, `${closedByServer} silent connections were closed to make room`);
    const probes = [];
    for (let i = 0; i < 20; i++) probes.push(await raw(server.port, 'GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    holding = false;
    for (const socket of silent) socket.destroy();
    assert.deepEqual(probes.filter((p) => !/^HTTP\/1\.1 200 /.test(p.text)).map((p) => p.error ?? p.text.slice(0, 40)), [], 'every probe answered 200');
    assert.equal(await stopServer(server), 0);
    assert.doesNotMatch(server.output(), /EMFILE|unexpected error/);
  });

  test('at the cap with every connection busy: a request gets 503 with Retry-After and the envelope, a probe its answer, no busy request is cut', async () => {
    const server = await spawnServer({ STACK_MAX_CONNECTIONS: '2', STACK_MAX_CONNECTIONS_PER_ADDRESS: '100' });
    try {
      // two requests whose bodies are still on their way hold both places (100 Continue: the server has them)
      const busy = await Promise.all([0, 1].map(() => new Promise<{ socket: net.Socket; answered: Promise<string> }>((started) => {
        const socket = net.connect({ port: server.port, host: '127.0.0.1' });
        let text = '';
        const answered = new Promise<string>((r) => socket.on('close', () => r(text)));
        socket.on('data', (c) => {
          text += c.toString('latin1');
          if (text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
            text = '';
            started({ socket, answered });
          }
        });
        socket.write(`POST /api/v1/validate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
      })));
      const turnedAway = await raw(server.port, 'GET /api/v1/services HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.equal(statusOf(turnedAway.text), 503, turnedAway.error ?? turnedAway.text.slice(0, 100));
      assert.equal(headerOf(turnedAway.text, 'Retry-After'), '1');
      assert.equal(headerOf(turnedAway.text, 'Connection'), 'close');
      assert.match(headerOf(turnedAway.text, 'X-RateLimit-Remaining') ?? '', /^\d+$/);
      assert.equal(bodyOf(turnedAway.text).error.code, 'SERVICE_UNAVAILABLE');
      for (const probe of ['/livez', '/readyz']) {
        assert.match((await raw(server.port, `GET ${probe} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).text, /^HTTP\/1\.1 200 /, `${probe} is answered at the cap`);
      }
      for (const b of busy) b.socket.write('{}');
      const answers = await Promise.all(busy.map((b) => b.answered));
      assert.deepEqual(answers.map((a) => a.slice(0, 15)), ['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK'], 'the busy requests were answered');
      assert.match((await raw(server.port, 'GET /api/v1/services HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).text, /^HTTP\/1\.1 200 /, 'and then there is room again');
    } finally {
      assert.equal(await stopServer(server), 0);
    }
  });

  test('a cap that fits is kept; one that does not is lowered, with how to raise the limit', async () => {
    const { fitConnectionCap } = await import('../../src/http/fd-limit.js');
    assert.deepEqual(fitConnectionCap(1000, { soft: 20_000, hard: 20_000 }), { cap: 1000, openFiles: 20_000 });
    const lowered = fitConnectionCap(1000, { soft: 1024, hard: 1024 });
    assert.equal(lowered.cap, 960);
    assert.match(lowered.warning!, /raise the hard limit \(ulimit -Hn, or LimitNOFILE= in the systemd unit\)/);
  });
});

describe('catalogue reads can be revalidated', () => {
  test('an ETag on every catalogue read; If-None-Match with it gives 304 without a body, still counted', async () => {
    const server = await startServer();
    try {
      for (const path of ['/api/v1/services', '/api/v1/presets', '/api/v1/presets/full-stack', '/api/v1/skills']) {
        const first = await server.get(path);
        await first.arrayBuffer();
        const etag = first.headers.get('etag');
        assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/, path);
        const again = await server.get(path, { 'If-None-Match': etag! });
        assert.equal(again.status, 304, path);
        assert.equal((await again.arrayBuffer()).byteLength, 0);
        assert.ok(again.headers.get('x-ratelimit-remaining'), 'a 304 is a counted read too');
        const other = await server.get(path, { 'If-None-Match': '"something-else"' });
        assert.equal(other.status, 200, path);
      }
    } finally {
      await server.close();
    }
  });
});
