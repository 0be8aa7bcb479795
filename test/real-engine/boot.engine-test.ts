// Boots representative generated stacks on the real Docker engine, the way their README says, and checks
// what a user relies on: start.sh succeeds, every container is healthy, every route answers through the
// proxy with the right login, the stack stops and comes back on its kept volumes, and `docker compose down`
// keeps the data and leaves nothing anonymous behind. Counts and states only, no timing assertions.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems, databaseProblems, routeProblems } from './checks.js';
import { bridgeGateway, requireEngine } from './engine.js';
import { anonymousVolumes, Stack } from './stack.js';

/** The provider key a user sets before the first start (OpenClaw needs one; no call reaches a provider). */
const PROVIDER_KEY = { OPENAI_API_KEY: 'sk-stackwright-engine-test' };

const CASES: { label: string; request: Record<string, unknown>; databases?: true; native?: true }[] = [
  {
    label: 'the largest preset (full stack) behind Caddy: gated routes, PostgreSQL consumers, the real OpenClaw',
    request: { name: 'e2e-full', preset: 'full-stack', proxy: 'caddy' },
    databases: true,
  },
  {
    label: 'automation hub and BookStack behind nginx: PostgreSQL and MySQL consumers',
    request: { name: 'e2e-nginx', services: ['n8n', 'postgresql', 'ntfy', 'gotenberg', 'versitygw', 'bookstack'], proxy: 'nginx' },
    databases: true,
  },
  {
    label: 'offline assistant on bare metal behind Caddy: the container part, and the proxy reaching the native parts',
    request: { name: 'e2e-native', preset: 'offline-assistant', deploymentType: 'bare-metal', proxy: 'caddy' },
    native: true,
  },
];

/**
 * The native parts of a bare-metal stack are not installed here (install.sh would put them under systemd);
 * a listener of ours on the host-gateway address takes each one's port, as install.sh binds them, so the
 * routes show the proxy container reaching the host.
 */
async function standInForNatives(stack: Stack): Promise<{ env: Record<string, string>; close: () => void }> {
  const gateway = await bridgeGateway();
  const servers = stack.routes()
    .map((r) => /^host\.docker\.internal:(\d+)$/.exec(r.target)?.[1])
    .filter((port): port is string => Boolean(port))
    .map((port) => http.createServer((_req, res) => res.end('native stand-in')).listen(Number(port), gateway));
  return { env: { STACK_NATIVE_BIND: gateway }, close: () => servers.forEach((s) => s.close()) };
}

before(async () => {
  await requireEngine();
});

for (const { label, request, databases, native } of CASES) {
  describe(label, { concurrency: false }, () => {
    let stack: Stack;
    let anonymousBefore: string[];
    let natives: { env: Record<string, string>; close: () => void } | undefined;

    before(async () => {
      stack = await Stack.generate(request);
      await stack.provideImages();
      anonymousBefore = await anonymousVolumes();
      if (native) natives = await standInForNatives(stack);
      stack.writeEnv({ ...PROVIDER_KEY, ...natives?.env });
    });
    after(async () => {
      natives?.close();
      await stack?.remove();
    });

    test('scripts/start.sh exits 0; every container is healthy, one-shot ones exited 0, none restarted', async () => {
      const start = await stack.script('start.sh');
      assertSucceeded(start, 'start.sh');
      assert.match(start.stdout, /The stack is up/);
      assert.deepEqual(containerProblems(await stack.containers()), []);
    });

    test('every route in the README answers through the proxy with the login it names', async () => {
      assert.ok(stack.routes().length > 0, 'the README lists routes');
      assert.deepEqual(await routeProblems(stack), []);
    });

    if (databases) {
      test('each database consumer connects to its own database and to no other', async () => {
        const { checked, problems } = await databaseProblems(stack);
        assert.ok(checked > 0, 'the stack has database consumers');
        assert.deepEqual(problems, []);
      });
    }

    test('scripts/stop.sh, then start.sh again on the kept volumes: healthy again', async () => {
      const volumes = await stack.volumes();
      const stop = await stack.script('stop.sh');
      assert.equal(stop.code, 0, stop.stderr);
      assert.equal((await stack.containers()).length, 0, 'stop.sh removes the containers');
      assert.deepEqual(await stack.volumes(), volumes, 'stop.sh keeps every named volume');
      const start = await stack.script('start.sh');
      assertSucceeded(start, 'the second start');
      assert.deepEqual(containerProblems(await stack.containers()), []);
    });

    test('docker compose down keeps the named volumes and leaves no anonymous volume behind', async () => {
      const volumes = await stack.volumes();
      assert.ok(volumes.length > 0, 'the stack has named volumes');
      const down = await stack.compose(['down']);
      assert.equal(down.code, 0, down.stderr);
      assert.deepEqual(await stack.volumes(), volumes);
      const left = (await anonymousVolumes()).filter((v) => !anonymousBefore.includes(v));
      assert.deepEqual(left, [], 'anonymous volumes left by the stack');
    });
  });
}
