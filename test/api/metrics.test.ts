// GET /metrics on a real process, parsed by a Prometheus text-format parser: who may read it, and the
// values moving as requests, rejections, reloads and connection-cap actions happen.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { writeCatalogue } from '../support/fixture.js';
import { spawnServer, stopServer, waitForOutput, type ServerProcess } from '../support/process.js';
import { scrape, value } from '../support/prometheus.js';

const KEY = 'metrics-test-Key-4Fg8Jk2Qw6Zx9Cv3Bn';
const TOKEN = 'scrape-Token-9Lp3Rt7Yu1Hs5Dm8Xk2W';

describe('GET /metrics', () => {
  let server: ServerProcess;
  let dirs: { plugins: string; catalogue: string };
  before(async () => {
    dirs = writeCatalogue();
    server = await spawnServer({
      STACK_API_KEY: KEY, STACK_METRICS_TOKEN: TOKEN, STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue,
      STACK_CATALOGUE_CACHE: '', STACK_WATCH_CATALOGUE: '0', STACK_RATE_LIMIT_GENERATE: '1', STACK_RATE_LIMIT_WINDOW_SECONDS: '86400', STACK_MAX_CONNECTIONS_PER_ADDRESS: '4',
    });
  });
  after(async () => {
    await stopServer(server);
  });

  test('needs the metrics token or an API key; other methods get 405; it is never rate-limited', async () => {
    const none = await fetch(`${server.url}/metrics`);
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    assert.match(((await none.json()) as { error: { message: string } }).error.message, /API key or STACK_METRICS_TOKEN/);
    assert.equal((await fetch(`${server.url}/metrics`, { headers: { Authorization: 'Bearer not-the-token-at-all-000000' } })).status, 401);
    const post = await fetch(`${server.url}/metrics`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await scrape(server.url, KEY);
    const families = await scrape(server.url, TOKEN);
    assert.equal(families.get('stackwright_http_requests_total')?.type, 'counter');
    assert.equal(families.get('stackwright_http_request_duration_seconds')?.type, 'histogram');
    assert.ok(families.has('process_resident_memory_bytes'), 'the process metrics are there too');
    assert.equal(families.has('stackwright_redis_up'), false, 'no Redis, no Redis gauge');
  });

  test('requests by route and status, their durations, rejections and the generation queue move as requests are made', async () => {
    const before = await scrape(server.url, TOKEN);
    const route = { method: 'GET', route: '/api/v1/services/:id', status: '200' };
    for (const id of ['alpha', 'beta', 'alpha']) assert.equal((await fetch(`${server.url}/api/v1/services/${id}`)).status, 200);
    assert.equal((await fetch(`${server.url}/api/v1/services/nope`)).status, 404);
    const generate = () => fetch(`${server.url}/api/v1/generate`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'm', services: ['alpha'] }) });
    assert.equal((await generate()).status, 200);
    assert.equal((await generate()).status, 429);
    const later = await scrape(server.url, TOKEN);

    assert.equal(value(later, 'stackwright_http_requests_total', route) - value(before, 'stackwright_http_requests_total', route), 3);
    assert.equal(value(later, 'stackwright_http_requests_total', { route: '/api/v1/services/:id', status: '404' }) - value(before, 'stackwright_http_requests_total', { route: '/api/v1/services/:id', status: '404' }), 1);
    assert.equal(value(later, 'stackwright_http_requests_total', { route: '/api/v1/generate', status: '429' }), 1);
    const durations = (families: typeof later) => value(families, 'stackwright_http_request_duration_seconds_count', { route: '/api/v1/services/:id' });
    assert.equal(durations(later) - durations(before), 4);
    assert.equal(value(later, 'stackwright_rate_limit_rejections_total', { bucket: 'generate' }), 1);
    assert.equal(value(later, 'stackwright_generate_queue_wait_seconds_count') - value(before, 'stackwright_generate_queue_wait_seconds_count'), 1, 'one generation took its turn');
    assert.equal(value(later, 'stackwright_generate_queue_depth'), 0);
    // the raw paths never become labels: /api/v1/services/nope is counted under its pattern
    assert.ok(!later.get('stackwright_http_requests_total')!.samples.some((s) => s.labels.route.includes('nope')));
  });

  test('the catalogue revision and reloads, refused ones included', async () => {
    const health = await (await fetch(`${server.url}/api/v1/health`)).json() as { data: { catalogue: { revision: string } } };
    const before = await scrape(server.url, TOKEN);
    assert.equal(value(before, 'stackwright_catalogue_info', { revision: health.data.catalogue.revision }), 1);
    assert.ok(value(before, 'stackwright_catalogue_loaded_timestamp_seconds') > 1.7e9);

    let mark = server.output().length;
    server.child.kill('SIGHUP');
    await waitForOutput(server, /catalogue checked \(SIGHUP\): unchanged/, mark);
    const beta = path.join(dirs.plugins, 'services', 'beta', 'service.yaml');
    const original = fs.readFileSync(beta, 'utf8');
    fs.writeFileSync(beta, original.replace('category: database', 'category: nope'));
    mark = server.output().length;
    server.child.kill('SIGHUP');
    await waitForOutput(server, /catalogue reload \(SIGHUP\) refused/, mark);
    fs.writeFileSync(beta, original.replace('minMemoryMB: 64', 'minMemoryMB: 65'));
    mark = server.output().length;
    server.child.kill('SIGHUP');
    await waitForOutput(server, /catalogue reloaded \(SIGHUP\)/, mark);

    const later = await scrape(server.url, TOKEN);
    for (const outcome of ['unchanged', 'refused', 'changed']) {
      assert.equal(value(later, 'stackwright_catalogue_reloads_total', { outcome }) - value(before, 'stackwright_catalogue_reloads_total', { outcome }), 1, outcome);
    }
    const revisions = later.get('stackwright_catalogue_info')!.samples;
    assert.equal(revisions.length, 1, 'only the revision in force');
    assert.notEqual(revisions[0].labels.revision, health.data.catalogue.revision);
  });

  test('connection-cap actions: silent connections over the per-address cap are closed to make room', { timeout: 60_000 }, async () => {
    const before = await scrape(server.url, TOKEN);
    const sockets: net.Socket[] = [];
    let closedCount = 0;
    let twoClosed!: () => void;
    const enough = new Promise<void>((r) => { twoClosed = r; });
    for (let i = 0; i < 7; i++) {
      // only a connection silent for a second is closed to make room (src/http/connections.ts): the last three
      // come once the first four have been silent that long (the scrape's keep-alive connection may hold a
      // place too, so three newcomers close at least two of ours)
      if (i === 4) await new Promise((r) => setTimeout(r, 1_500));
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.once('close', () => { if (++closedCount === 2) twoClosed(); });
      await new Promise((r) => socket.once('connect', r));
      sockets.push(socket);
    }
    // the cap is 4 per address: at least two of the seven silent connections were closed to make room
    // other keep-alive connections of this file's requests may be the ones closed: the count is what matters
    await Promise.race([enough, new Promise((r) => setTimeout(r, 5_000))]);
    for (const s of sockets) s.destroy();
    const later = await scrape(server.url, TOKEN);
    assert.ok(value(later, 'stackwright_connection_cap_actions_total', { action: 'closed_idle' }) - value(before, 'stackwright_connection_cap_actions_total', { action: 'closed_idle' }) >= 2);
  });
});
