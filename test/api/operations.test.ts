// What operators rely on (issue 9): a dropped plugin folder is served without a restart, a broken one
// never replaces a good catalogue, probes that cannot be rate-limited away, and STACK_TRUST_PROXY ranges.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { logText, spawnServer, stopServer, waitForOutput, type ServerProcess } from '../support/process.js';
import { catalogueCopy, service } from '../support/fixture.js';
import { KEY } from '../support/keys.js';
const auth = { Authorization: `Bearer ${KEY}` };

async function json(res: Response) {
  return { status: res.status, body: await res.json() as { ok: boolean; data?: any; error?: any } };
}

describe('hot reload of the catalogue', () => {
  let dirs: { plugins: string; catalogue: string };
  let server: ServerProcess;
  before(async () => {
    dirs = catalogueCopy();
    server = await spawnServer({
      STACK_API_KEY: KEY, STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue,
      STACK_CATALOGUE_CACHE: '', STACK_RELOAD_DEBOUNCE_MS: '100',
    });
    await waitForOutput(server, /watching .* changes reload the catalogue/);
  });
  after(async () => {
    await stopServer(server);
  });

  test('a dropped folder is listed without a restart; a broken manifest leaves the old catalogue serving, with the error on /health', async () => {
    const before = await json(await fetch(`${server.url}/api/v1/health`));
    assert.equal(before.body.data.catalogue.lastReloadError, null);
    assert.equal((await fetch(`${server.url}/api/v1/services/dropped`)).status, 404);

    // an operator copies a plugin folder in
    let mark = server.output().length;
    fs.mkdirSync(path.join(dirs.plugins, 'services', 'dropped'));
    fs.writeFileSync(path.join(dirs.plugins, 'services', 'dropped', 'service.yaml'), service('dropped'));
    await waitForOutput(server, /catalogue reloaded \(files changed\)/, mark);
    const listed = await json(await fetch(`${server.url}/api/v1/services/dropped`));
    assert.equal(listed.status, 200);
    assert.equal(listed.body.data.image, 'example/dropped');
    const afterDrop = await json(await fetch(`${server.url}/api/v1/health`));
    assert.equal(afterDrop.body.data.services, before.body.data.services + 1);
    assert.notEqual(afterDrop.body.data.catalogue.revision, before.body.data.catalogue.revision);
    // generation uses the new snapshot too
    const generated = await json(await fetch(`${server.url}/api/v1/generate`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'live', services: ['dropped'] }) }));
    assert.equal(generated.status, 200);
    assert.match(generated.body.data.files['docker-compose.yml'], /example\/dropped:1\.2\.3/);

    // then breaks it
    mark = server.output().length;
    fs.writeFileSync(path.join(dirs.plugins, 'services', 'dropped', 'service.yaml'), service('dropped').replace('category: database', 'category: databse'));
    const log = await waitForOutput(server, /refused[^]*category\.unknown/, mark);
    assert.match(log, /catalogue reload \(files changed\) refused: 1 error\(s\)[^]*plugins\/services\/dropped\/service\.yaml {2}\/category {2}category\.unknown/);
    const stillServed = await json(await fetch(`${server.url}/api/v1/services/dropped`));
    assert.equal(stillServed.status, 200, 'the last good catalogue keeps serving');
    const health = await json(await fetch(`${server.url}/api/v1/health`));
    assert.equal(health.body.data.catalogue.revision, afterDrop.body.data.catalogue.revision);
    assert.equal(health.body.data.catalogue.lastReloadError.count, 1);
    assert.match(health.body.data.catalogue.lastReloadError.problems[0], /dropped\/service\.yaml {2}\/category {2}category\.unknown/);

    // fixed, and reloaded by SIGHUP as well
    mark = server.output().length;
    fs.writeFileSync(path.join(dirs.plugins, 'services', 'dropped', 'service.yaml'), service('dropped').replace('A service for loader tests.', 'Fixed description.'));
    await waitForOutput(server, /catalogue reloaded/, mark);
    mark = server.output().length;
    server.child.kill('SIGHUP');
    await waitForOutput(server, /catalogue checked \(SIGHUP\): unchanged/, mark);
    const fixed = await json(await fetch(`${server.url}/api/v1/health`));
    assert.equal(fixed.body.data.catalogue.lastReloadError, null);
    assert.equal((await json(await fetch(`${server.url}/api/v1/services/dropped`))).body.data.description, 'Fixed description.');
  });
});

describe('probes', () => {
  let server: ServerProcess;
  before(async () => {
    server = await spawnServer({ STACK_API_KEY: KEY, STACK_RATE_LIMIT_READ: '2', STACK_SHUTDOWN_GRACE_MS: '3000', STACK_WATCH_CATALOGUE: '0' });
  });
  after(async () => {
    await stopServer(server);
  });

  test('/livez and /readyz answer without a key and are never rate-limited; /health is a counted read', async () => {
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/api/v1/health`);
    assert.equal((await fetch(`${server.url}/api/v1/health`)).status, 429);
    for (let i = 0; i < 20; i++) {
      const live = await json(await fetch(`${server.url}/livez`));
      const ready = await json(await fetch(`${server.url}/readyz`));
      assert.deepEqual([live.status, live.body], [200, { ok: true, data: { status: 'live' } }]);
      assert.deepEqual([ready.status, ready.body], [200, { ok: true, data: { status: 'ready' } }]);
    }
    const post = await json(await fetch(`${server.url}/readyz`, { method: 'POST' }));
    assert.equal(post.status, 405);
  });

  test('/readyz says not ready while the server drains for shutdown; /livez stays live', async () => {
    const mark = server.output().length;
    server.child.kill('SIGTERM');
    await waitForOutput(server, /SIGTERM: answering requests already under way/, mark);
    const ready = await json(await fetch(`${server.url}/readyz`));
    assert.equal(ready.status, 503);
    assert.equal(ready.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal((await fetch(`${server.url}/livez`)).status, 200);
  });
});

describe('STACK_TRUST_PROXY', () => {
  test('a value that is no address or range stops the start with a message naming it', async () => {
    const result = await new Promise<{ code: number | null; log: string }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], { env: { ...process.env, PORT: '0', STACK_TRUST_PROXY: '10.0.0.1, 172.16.0.0/33' } }, (_e, stdout) => resolve({ code: child.exitCode, log: logText(stdout) }));
    });
    assert.equal(result.code, 2);
    assert.match(result.log, /STACK_TRUST_PROXY holds "172\.16\.0\.0\/33", which is neither an IP address nor a CIDR range/);
  });

  test('a CIDR range is trusted: clients behind it get buckets of their own', async () => {
    const server = await spawnServer({ STACK_RATE_LIMIT_READ: '5', STACK_TRUST_PROXY: '127.0.0.0/8', STACK_WATCH_CATALOGUE: '0' });
    try {
      const remaining = async (client: string) => Number((await fetch(`${server.url}/api/v1/presets`, { headers: { 'X-Forwarded-For': client } })).headers.get('x-ratelimit-remaining'));
      assert.equal(await remaining('203.0.113.7'), 4);
      assert.equal(await remaining('203.0.113.7'), 3);
      assert.equal(await remaining('198.51.100.9'), 4, 'another client behind the proxy has its own bucket');
    } finally {
      await stopServer(server);
    }
  });
});
