// Stacks of services the kit runs as their real program (programs.ts), booted the way their README says, and
// what each program proves about what its plugin renders (program-checks.ts): the program's own check of the
// rendered config, the .env credentials logging in and wrong ones refused, the database consumer's migrations
// on the real PostgreSQL, data written before a stop read back after the next start.
//
// Pending: the kits it runs are not yet proven on an engine (programs.ts `proven: false`), so this file is not an
// *.engine-test.ts that `npm run test:engine` and CI pick up. Run it with
//   flock /tmp/stackwright-engine.lock node --import tsx --test --test-concurrency=1 test/real-engine/programs.engine-pending.ts
// and once it passes, drop `proven: false` from the kits it proved and rename it to programs.engine-test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems, databaseProblems, routeProblems } from './checks.js';
import { docker, requireEngine } from './engine.js';
import { PROGRAM_CHECKS } from './program-checks.js';
import { REAL_PROGRAMS, realProgramFor } from './programs.js';
import { Stack } from './stack.js';

export const PROGRAM_STACKS: { label: string; request: Record<string, unknown> }[] = [
  {
    label: 'Debian-packaged programs behind Caddy: brokers, key-value stores, metrics and alerting, backups, a feed reader on PostgreSQL',
    request: {
      name: 'e2e-programs',
      services: ['mosquitto', 'valkey', 'ntfy', 'nats', 'etcd', 'victoria-metrics', 'alertmanager', 'prometheus', 'node-exporter', 'restic-rest-server', 'miniflux', 'postgresql', 'rabbitmq'],
      proxy: 'caddy',
    },
  },
  {
    label: 'npm-packaged programs behind nginx: Node-RED, and Unleash on PostgreSQL',
    request: { name: 'e2e-npm-programs', services: ['node-red', 'unleash', 'postgresql'], proxy: 'nginx' },
  },
];

async function allProblems(stack: Stack, ids: string[], step: 'check' | 'write' | 'readBack'): Promise<string[]> {
  const problems: string[] = [];
  for (const id of ids) {
    const run = PROGRAM_CHECKS[id]?.[step];
    if (run) problems.push(...(await run(stack)).map((p) => `${id}: ${p}`));
  }
  return problems;
}

// this file runs the unproven kits (programs.ts): set before any image is provided
process.env.STACKWRIGHT_UNPROVEN_KITS = '1';

before(async () => {
  await requireEngine();
});

for (const { label, request } of PROGRAM_STACKS) {
  describe(label, { concurrency: false }, () => {
    let stack: Stack;
    const ids = request.services as string[];

    before(async () => {
      stack = await Stack.generate(request);
      await stack.provideImages();
      stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test' });
    });
    after(async () => {
      await stack?.remove();
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
      assert.deepEqual(await routeProblems(stack), []);
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
  });
}
