// Stacks of services the kit runs as their real program (programs.ts), booted the way their README says, and
// what each program proves about what its plugin renders (program-checks.ts): the program's own check of the
// rendered config, the .env credentials logging in and wrong ones refused, the database consumer's migrations
// on the real PostgreSQL, data written before a stop read back after the next start.
//
// CI runs one stack (tiers.ts); `npm run test:engine -- --all` runs every one. A stack whose kits are not yet
// proven (programs.ts `proven: false`) runs them with STACKWRIGHT_UNPROVEN_KITS=1; once it passes, the flag goes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems, databaseProblems, routeProblems } from './checks.js';
import { docker, requireEngine } from './engine.js';
import { PROGRAM_CHECKS } from './program-checks.js';
import { REAL_PROGRAMS, realProgramFor } from './programs.js';
import { anonymousVolumes, Stack } from './stack.js';
import { ciOrAll } from './tiers.js';

// The framework is the generic stand-in nanobot: these stacks prove the services' programs, and OpenClaw's
// minutes-long start (agent-chat.engine-test.ts proves it) would double their time. `inCi`: the stack CI runs
// (tiers.ts), within its time budget (Valkey's and ntfy's images are built for other CI tests anyway, so it adds one
// kit build, Mosquitto's); the others run with `npm run test:engine -- --all`.
// `unproven`: the stack's kits are not yet proven (programs.ts), so it runs them with STACKWRIGHT_UNPROVEN_KITS=1.
export const PROGRAM_STACKS: { label: string; inCi: boolean; unproven?: true; request: Record<string, unknown> }[] = [
  {
    label: 'Debian-packaged programs behind Caddy: MQTT broker, key-value store, push notifications',
    inCi: true,
    request: {
      name: 'e2e-programs',
      primaryFramework: 'nanobot',
      services: ['mosquitto', 'valkey', 'ntfy'],
      proxy: 'caddy',
    },
  },
  {
    label: 'more Debian-packaged programs behind Caddy: messaging, coordination, metrics and alerting, backups, a feed reader on PostgreSQL',
    inCi: false,
    request: {
      name: 'e2e-more-programs',
      primaryFramework: 'nanobot',
      services: ['nats', 'etcd', 'victoria-metrics', 'alertmanager', 'prometheus', 'node-exporter', 'restic-rest-server', 'rabbitmq', 'miniflux', 'postgresql'],
      proxy: 'caddy',
    },
  },
  {
    label: 'npm-packaged programs behind nginx: Node-RED, and Unleash on PostgreSQL',
    inCi: false,
    request: { name: 'e2e-npm-programs', primaryFramework: 'nanobot', services: ['node-red', 'unleash', 'postgresql'], proxy: 'nginx' },
  },
  {
    label: 'Verdaccio from npm behind nginx',
    inCi: false,
    request: { name: 'e2e-verdaccio-program', primaryFramework: 'nanobot', services: ['verdaccio'], proxy: 'nginx' },
  },
  {
    label: 'phpMyAdmin from Debian in front of the stack\'s MySQL (MariaDB) behind nginx',
    inCi: false,
    request: { name: 'e2e-phpmyadmin-program', primaryFramework: 'nanobot', services: ['phpmyadmin'], proxy: 'nginx' },
  },
  {
    label: 'Adminer from Debian in front of the stack\'s PostgreSQL behind nginx',
    inCi: false,
    request: { name: 'e2e-adminer-program', primaryFramework: 'nanobot', services: ['adminer', 'postgresql'], proxy: 'nginx' },
  },
  {
    label: 'Actual\'s sync server and WireMock from npm behind nginx',
    inCi: false,
    request: { name: 'e2e-actual-wiremock-programs', primaryFramework: 'nanobot', services: ['actual', 'wiremock'], proxy: 'nginx' },
  },
  {
    label: 'n8n from npm on PostgreSQL behind nginx',
    inCi: false,
    unproven: true,
    request: { name: 'e2e-n8n-program', primaryFramework: 'nanobot', services: ['n8n', 'postgresql'], proxy: 'nginx' },
  },
];

// Every host port moved up by this much (as .env lets a user do): the stacks start whatever ports other stacks on
// the shared engine hold (the generated ones take 80, 5432, 1883 ...)
const PORT_SHIFT = 20000;

/** .env values that move each of the stack's host ports (KEY_PORT_<container port>) up by PORT_SHIFT. */
function shiftedPorts(stack: Stack): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of stack.read('.env.example').matchAll(/^([A-Z0-9_]+_PORT_\d+)=(\d+)$/gm)) out[m[1]] = String(Number(m[2]) + PORT_SHIFT);
  return out;
}

// Settings the kit's older program cannot read in the form the pin takes, set in .env to one both read:
// VictoriaMetrics 1.150 (the pin) reads the plugin's default retention 1M (lib/flagutil/duration.go@v1.150.0:80-95,
// app/vmstorage/main.go:29 default "1M"); Debian's 1.112 refuses any m/M suffix (duration.go@v1.112.0:73-75)
const VERSION_GAP_SETTINGS = { VICTORIA_METRICS_RETENTION_PERIOD: '31d' };

async function allProblems(stack: Stack, ids: string[], step: 'check' | 'write' | 'readBack'): Promise<string[]> {
  const problems: string[] = [];
  for (const id of ids) {
    const run = PROGRAM_CHECKS[id]?.[step];
    if (run) problems.push(...(await run(stack)).map((p) => `${id}: ${p}`));
  }
  return problems;
}

before(async () => {
  await requireEngine();
});

for (const { label, inCi, unproven, request } of PROGRAM_STACKS) {
  describe(label, { concurrency: false, ...ciOrAll(inCi) }, () => {
    let stack: Stack;
    let anonymousBefore: string[];
    const ids = request.services as string[];

    before(async () => {
      if (unproven) process.env.STACKWRIGHT_UNPROVEN_KITS = '1';
      anonymousBefore = await anonymousVolumes();
      stack = await Stack.generate(request);
      await stack.provideImages();
      stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test', ...shiftedPorts(stack), ...VERSION_GAP_SETTINGS });
    });
    after(async () => {
      await stack?.remove();
      delete process.env.STACKWRIGHT_UNPROVEN_KITS;
    });

    test('every service of the stack with a program check runs its real program, at the version the kit table says', async () => {
      const problems: string[] = [];
      for (const reference of stack.images()) {
        const real = realProgramFor(reference.slice(0, reference.lastIndexOf(':')));
        if (!real?.versionCommand) continue;
        const [entry, ...args] = real.versionCommand;
        const r = await docker(['run', '--rm', '--entrypoint', entry, reference, ...args]);
        if (!`${r.stdout}${r.stderr}`.includes(real.version)) problems.push(`${reference}: ${real.versionCommand.join(' ')} does not say ${real.version}: ${(r.stdout + r.stderr).trim().slice(0, 200)}`);
      }
      for (const id of ids) if (!PROGRAM_CHECKS[id] && id !== 'postgresql') problems.push(`${id}: no program check`);
      assert.deepEqual(problems, []);
      assert.ok(REAL_PROGRAMS.length > 0);
    });

    test('scripts/start.sh exits 0; every container is healthy (the manifests\' health checks against the real programs)', async () => {
      const start = await stack.script('start.sh');
      assertSucceeded(start, 'start.sh');
      assert.deepEqual(containerProblems(await stack.containers()), []);
    });

    test('each program reads what its plugin rendered: config checks, logins right and wrong', async () => {
      assert.deepEqual(await allProblems(stack, ids, 'check'), []);
    });

    test('every route answers through the proxy; each database consumer reaches its own database only', async () => {
      const proxyPort = Number(stack.env(`${String(request.proxy).toUpperCase()}_PORT_80`));
      assert.ok(proxyPort > PORT_SHIFT, 'the proxy\'s host port was moved');
      assert.deepEqual(await routeProblems(stack, { port: proxyPort }), []);
      assert.deepEqual((await databaseProblems(stack)).problems, []);
    });

    test('data written before stop.sh is read back after start.sh, and the programs pass their checks again', async () => {
      assert.deepEqual(await allProblems(stack, ids, 'write'), []);
      assert.equal((await stack.script('stop.sh')).code, 0);
      const start = await stack.script('start.sh');
      assertSucceeded(start, 'the second start');
      assert.deepEqual(containerProblems(await stack.containers()), []);
      assert.deepEqual(await allProblems(stack, ids, 'readBack'), []);
      assert.deepEqual(await allProblems(stack, ids, 'check'), []);
    });

    // the real programs' images declare VOLUMEs of their own: each needs a volume in its manifest, or every container
    // of it gets an anonymous one that `down` leaves behind (Mosquitto's /mosquitto/log did, until session 47)
    test('docker compose down keeps the named volumes and leaves no anonymous volume behind', async () => {
      const volumes = await stack.volumes();
      const down = await stack.compose(['down']);
      assert.equal(down.code, 0, down.stderr);
      assert.deepEqual(await stack.volumes(), volumes);
      assert.deepEqual((await anonymousVolumes()).filter((v) => !anonymousBefore.includes(v)), [], 'anonymous volumes left by the stack');
    });
  });
}
