// Swarm for real (issue 32): the tier's engine becomes a one-node Swarm (unless it already is a manager), and a
// generated stack with PostgreSQL and MySQL consumers behind nginx is deployed the way its README says
// (scripts/deploy.sh, the kit's images, STACK_RESOLVE_IMAGE=never). Checked: docker stack deploy warns of no
// ignored option, every service converges (replicas n/n, a task with a health check counts once healthy; the
// setup jobs complete), every route answers through the proxy with the login it names (asked from a container
// on the stack's attachable overlay network: Swarm publishes no port of a stack without a public domain), no
// service definition holds a secret value the README does not name (the rest are Swarm secrets, read as files),
// each consumer reaches only its own databases, a second deploy restarts no service (its setup jobs run again,
// idempotent), archives that are gzip but no tar are refused before anything stops, a backup restores (a row
// changed after it is back as it was, what it replaced kept), a backup interrupted leaves no folder, a restore
// that fails part-way or is interrupted puts every volume back as it was (these four in the long run), an
// update to a tag that does not exist is rolled back (by Swarm and scripts/update.sh) with .env naming the
// previous image, an update of two services where one fails leaves both on their previous images (the one whose
// update had completed is deployed back), and a Ctrl-C while Swarm updates rolls the update back.
// The largest preset runs with --all only. `after` removes the stacks and leaves the swarm it made.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as yaml from 'js-yaml';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, databaseProblems, type DatabaseExec } from './checks.js';
import { docker, dockerOk, requireEngine } from './engine.js';
import { HELPER_IMAGE } from '../../src/model/helper-image.js';
import { Outside } from './outside.js';
import { Stack } from './stack.js';
import { ciOrAll } from './tiers.js';

const PROVIDER_KEY = { OPENAI_API_KEY: 'sk-stackwright-engine-test' };
const NEVER = { STACK_RESOLVE_IMAGE: 'never', STACK_START_TIMEOUT: '600' };

let madeSwarm = false;

before(async () => {
  await requireEngine();
  if ((await dockerOk(['info', '--format', '{{.Swarm.LocalNodeState}}'])).trim() !== 'active') {
    // a host with several addresses needs one named; a single node can advertise its loopback
    if ((await docker(['swarm', 'init'])).code !== 0) await dockerOk(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    madeSwarm = true;
  }
});

after(async () => {
  if (madeSwarm) await docker(['swarm', 'leave', '--force']);
});

/** Each service's replicas as `docker stack services` prints them (a job: "0/1 (1/1 completed)"). */
async function replicas(stack: string): Promise<Map<string, string>> {
  const out = await dockerOk(['stack', 'services', stack, '--format', '{{.Name}}\t{{.Replicas}}']);
  return new Map(out.split('\n').filter(Boolean).map((l) => l.split('\t') as [string, string]));
}

function notConverged(table: Map<string, string>): string[] {
  return [...table].filter(([, r]) => {
    const job = /\((\d+)\/(\d+) completed\)/.exec(r);
    if (job) return job[1] !== job[2];
    const [running, wanted] = r.split(' ')[0].split('/');
    return running !== wanted;
  }).map(([name, r]) => `${name} ${r}`);
}

/**
 * Every task of the stack's long-running services, past ones included. `docker stack deploy` sends each service's
 * definition again (its version moves on); a deploy that changes nothing starts no task of them. A replicated job
 * runs again on every update of its service (seen on Docker 20.10.24: each deploy re-runs both setup jobs), so
 * the setup jobs are idempotent by design and are judged by their completion, not their task list.
 */
async function serviceTasks(stack: string): Promise<string[]> {
  const lines = (await dockerOk(['stack', 'ps', stack, '--format', '{{.ID}} {{.Name}}'])).split('\n').filter(Boolean);
  return lines.filter((l) => !/-setup\./.test(l.split(' ')[1])).map((l) => l.split(' ')[0]).sort();
}

/** A command in the running task container of a stack's service (on this node). */
function taskExec(stack: string): DatabaseExec {
  return async (service, env, argv) => {
    const id = (await dockerOk(['ps', '-q', '--filter', `label=com.docker.swarm.service.name=${stack}_${service}`])).split('\n')[0];
    return docker(['exec', ...env.flatMap((e) => ['-e', e]), id, ...argv]);
  };
}

/**
 * A tar archive that lists whole (tar -t succeeds) but whose unpacking fails: the file ./x, then ./x/y, which
 * cannot be made under a file ("Not a directory"), as a disk that fills up mid-restore would fail it.
 */
function unpackableTar(): Buffer {
  const work = mkdtempSync(path.join(os.tmpdir(), 'stackwright-tar-'));
  try {
    mkdirSync(path.join(work, 'one'));
    mkdirSync(path.join(work, 'two', 'x'), { recursive: true });
    writeFileSync(path.join(work, 'one', 'x'), 'a file\n');
    writeFileSync(path.join(work, 'two', 'x', 'y'), 'under a file\n');
    execFileSync('tar', ['-C', path.join(work, 'one'), '-cf', path.join(work, 'a.tar'), './x']);
    execFileSync('tar', ['-C', path.join(work, 'two'), '-rf', path.join(work, 'a.tar'), './x/y']);
    return readFileSync(path.join(work, 'a.tar'));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A stack script started in a process group of its own (a Ctrl-C reaches the group), its output gathered as it comes. */
function startScript(stack: Stack, name: string, args: string[]) {
  const child = spawn('bash', [path.join(stack.dir, 'scripts', name), ...args], {
    cwd: stack.dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...NEVER },
  });
  const run = { stdout: '', stderr: '', code: new Promise<number>((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal ? 128 : 1)))) };
  child.stdout.setEncoding('utf8').on('data', (c: string) => { run.stdout += c; });
  child.stderr.setEncoding('utf8').on('data', (c: string) => { run.stderr += c; });
  return {
    run,
    /** until its output shows `line` (two minutes at most), then SIGINT to its process group, as a Ctrl-C */
    async interruptAfter(line: RegExp): Promise<void> {
      for (let i = 0; i < 600 && !line.test(run.stdout) && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 200));
      assert.match(run.stdout, line, `${name} did not get there:\n${run.stderr}`);
      process.kill(-child.pid!, 'SIGINT');
    },
  };
}

/** The README's routes: each URL, the service behind it and whether the proxy asks for the login. */
function routes(stack: Stack): { url: URL; service: string; gated: boolean }[] {
  return [...stack.read('README.md').matchAll(/^- (https?:\/\/\S+) → `([^`]+)` \(([^)]+)\)$/gm)]
    .map((m) => ({ url: new URL(m[1]), service: m[2], gated: /the proxy asks for the login/.test(m[3]) }));
}

/** The status of the proxy's first answer to a request sent from a container on the stack's network. */
async function statusThroughProxy(stack: Stack, proxy: string, url: URL, authorization?: string): Promise<number> {
  const headers = ['--header', `Host: ${url.host}`, ...(authorization ? ['--header', `Authorization: ${authorization}`] : [])];
  const result = await docker(['run', '--rm', '--network', `${stack.project}_stack`, HELPER_IMAGE, 'wget', '-S', '-O', '/dev/null', '-T', '15', ...headers, `http://${proxy}${url.pathname}${url.search}`]);
  return Number(/HTTP\/[\d.]+ (\d{3})/.exec(result.stderr)?.[1] ?? 0);
}

/**
 * Removes a stack and its volumes (the stack's own scripts keep volumes: the test leaves nothing behind). Swarm
 * removes a stack's containers after `docker stack rm` returns, and a volume in use cannot go: the containers are
 * waited for first. A volume left by an interrupted run would hold another run's passwords.
 */
async function removeStack(stack: Stack): Promise<void> {
  await stack.script('remove.sh');
  for (let i = 0; i < 60; i++) {
    if (!(await dockerOk(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${stack.project}`])).trim()) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const volumes = (await dockerOk(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${stack.project}`])).split('\n').filter(Boolean);
  if (volumes.length) await docker(['volume', 'rm', '-f', ...volumes]);
}

const CASES = [
  {
    label: 'n8n and BookStack behind nginx on Swarm: PostgreSQL and MySQL consumers',
    request: { name: 'swarm-db', services: ['n8n', 'postgresql', 'bookstack'], proxy: 'nginx', deploymentType: 'swarm' },
    options: ciOrAll(true),
    update: 'n8n',
  },
  {
    label: 'the largest preset (full stack) behind nginx on Swarm',
    request: { name: 'swarm-full', preset: 'full-stack', proxy: 'nginx', deploymentType: 'swarm' },
    options: ciOrAll(false),
    update: undefined,
  },
];

for (const { label, request, options, update } of CASES) {
  describe(label, { concurrency: false, ...options }, () => {
    let stack: Stack;

    before(async () => {
      stack = await Stack.generate(request);
      // what an interrupted earlier run left (services, volumes with its passwords) goes first
      await removeStack(stack);
      await stack.provideImages();
      stack.writeEnv(PROVIDER_KEY);
    });
    after(async () => {
      if (stack) await removeStack(stack);
    });

    test('scripts/deploy.sh converges with no ignored option: every service n/n, every setup job completed', async () => {
      const deploy = await stack.script('deploy.sh', [], NEVER);
      assertSucceeded(deploy, 'deploy.sh');
      assert.doesNotMatch(deploy.stdout + deploy.stderr, /Ignoring unsupported options|Ignoring deprecated options/);
      const table = await replicas(stack.project);
      assert.ok(table.size > 0);
      assert.deepEqual(notConverged(table), []);
    });

    test('every route answers through the proxy with the login the README names', async () => {
      const list = routes(stack);
      assert.ok(list.length > 0, 'the README lists routes');
      const proxy = String(request.proxy);
      const login = `Basic ${Buffer.from(`${stack.env('STACK_PROXY_USER') ?? 'admin'}:${stack.env('STACK_PROXY_PASSWORD')}`).toString('base64')}`;
      const problems: string[] = [];
      for (const r of list) {
        const anonymous = await statusThroughProxy(stack, proxy, r.url);
        if (r.gated) {
          if (anonymous !== 401) problems.push(`${r.url}: ${anonymous} without credentials (want 401)`);
          const authorised = await statusThroughProxy(stack, proxy, r.url, login);
          if (authorised < 200 || authorised >= 400) problems.push(`${r.url}: ${authorised} with the credentials in .env`);
        } else if (anonymous === 0 || anonymous >= 502) problems.push(`${r.url}: ${anonymous} (${r.service} not reached)`);
      }
      assert.deepEqual(problems, []);
    });

    test('secrets are Swarm secrets: no service definition holds a secret value the README does not name', async () => {
      const file = yaml.load(stack.read('stack.yml')) as { secrets?: Record<string, unknown> };
      const keys = Object.keys(file.secrets ?? {});
      assert.ok(keys.length > 0, 'stack.yml names Swarm secrets');
      // a secret as long as a generated one (16+ characters): a short value such as an access key id "stack" is
      // also a setting's value elsewhere (POSTGRES_USER), and that is no leak
      const secretValues = new Map(keys.map((k) => [stack.env(k), k]).filter(([v]) => v && v.length >= 16) as [string, string][]);
      const named = new Set([...stack.read('README.md').matchAll(/^ {2}- `([^`]+)`: `([^`]+)` \(/gm)].map((m) => `${m[1]} ${m[2]}`));
      const made = (await dockerOk(['secret', 'ls', '--filter', `label=com.docker.stack.namespace=${stack.project}`, '--format', '{{.Name}}'])).split('\n').filter(Boolean);
      assert.ok(made.length >= keys.length, `a Swarm secret per value: ${made.join(' ')}`);
      const problems: string[] = [];
      for (const service of (await dockerOk(['stack', 'services', stack.project, '--format', '{{.Name}}'])).split('\n').filter(Boolean)) {
        const env = JSON.parse(await dockerOk(['service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Env}}', service])) as string[] | null;
        const id = service.slice(stack.project.length + 1);
        for (const entry of env ?? []) {
          const [name, value] = [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];
          if (secretValues.has(value) && !named.has(`${id} ${name}`)) problems.push(`${id}: ${name} holds ${secretValues.get(value)}`);
        }
      }
      assert.deepEqual(problems, []);
    });

    test('each database consumer reaches its own databases and no other', async () => {
      const { checked, problems } = await databaseProblems(stack, taskExec(stack.project));
      assert.ok(checked > 0, 'consumers were checked');
      assert.deepEqual(problems, []);
    });

    test('a second deploy restarts no service; the setup jobs complete again and every consumer still reaches its databases', async () => {
      const before = await serviceTasks(stack.project);
      const again = await stack.script('deploy.sh', [], NEVER);
      assertSucceeded(again, 'deploy.sh again');
      assert.deepEqual(await serviceTasks(stack.project), before, 'no long-running service started a task');
      assert.deepEqual(notConverged(await replicas(stack.project)), [], `every service runs, every setup job completed; deploy.sh said:\n${again.stdout}${again.stderr}`);
      const { checked, problems } = await databaseProblems(stack, taskExec(stack.project));
      assert.ok(checked > 0);
      assert.deepEqual(problems, [], 'the re-run setup changed no database or login');
    });

    if (update) {
      // two stops and redeploys of every service with data: minutes, so in the long run only (CI's time budget)
      const sql = async (query: string) => {
        const r = await taskExec(stack.project)('postgresql', [], ['psql', '-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-U', stack.env('POSTGRESQL_POSTGRES_USER') ?? 'stack', '-d', 'n8n', '-c', query]);
        assertSucceeded(r, `psql ${query}`);
        return r.stdout.trim();
      };
      /** A backup taken while the marker row reads 'before', and the row changed to 'after' since. */
      const backupThenChange = async () => {
        await sql("CREATE TABLE IF NOT EXISTS swarm_backup_marker (v text); DELETE FROM swarm_backup_marker; INSERT INTO swarm_backup_marker VALUES ('before')");
        const backup = await stack.script('backup.sh', [], NEVER);
        assertSucceeded(backup, 'backup.sh');
        const dir = /backed up \d+ volume\(s\) to (\S+)/.exec(backup.stdout)?.[1];
        assert.ok(dir, backup.stdout);
        assert.deepEqual(notConverged(await replicas(stack.project)), [], 'deployed again after the backup');
        await sql("UPDATE swarm_backup_marker SET v = 'after'");
        return dir;
      };

      /** The Swarm backup's volumes, in the order it archives and restores them. */
      const backupVolumes = () => /^volumes=\((.*)\)$/m.exec(stack.read('scripts/backup.sh'))![1].split(' ');

      test('backup.sh --restore of a folder whose archives are gzip but no tar: refused before any service stops', async () => {
        const bogus = path.join(stack.dir, 'backups', 'bogus');
        mkdirSync(bogus, { recursive: true });
        for (const volume of backupVolumes()) writeFileSync(path.join(bogus, `${volume}.tar.gz`), gzipSync('not a tar archive\n'));
        const tasks = await serviceTasks(stack.project);
        const restore = await stack.script('backup.sh', ['--restore', bogus], NEVER);
        assert.notEqual(restore.code, 0, restore.stdout);
        assert.match(restore.stderr, /has no whole \S+\.tar\.gz .*lists nothing.*: nothing was stopped/);
        assert.deepEqual(await serviceTasks(stack.project), tasks, 'no service was scaled or restarted');
        rmSync(bogus, { recursive: true });
      });

      test('backup.sh --verify: a scratch stack on the backup\'s volumes converges without the proxy and reaching nothing beyond this machine, then goes with its volumes, network and secrets; the running stack is untouched', async () => {
        const dir = await backupThenChange();
        // the backup names the services the stack ran; one it did not name (here n8n, as if added since, and broken in
        // the copy's stack.yml as a consumer whose database the backup lacks would be) is not started in the copy
        const listed = path.join(stack.dir, dir, 'services');
        assert.deepEqual(readFileSync(listed, 'utf8').trim().split('\n'), ['bookstack', 'mysql', 'mysql-setup', 'n8n', 'nginx', 'openclaw', 'postgresql', 'postgresql-setup']);
        writeFileSync(listed, readFileSync(listed, 'utf8').replace(/^n8n\n/m, ''));
        // a service only the copy runs (stack.yml is copied; the running stack is not deployed again here) that calls a
        // stand-in for the internet every second, as a chat channel or a scheduled workflow calls out
        const outside = await Outside.start();
        const stackFile = path.join(stack.dir, 'stack.yml');
        const original = readFileSync(stackFile, 'utf8');
        const document = yaml.load(original) as { services: Record<string, Record<string, unknown>> };
        document.services.n8n.command = ['sh', '-c', 'echo cannot start on this backup; exit 1'];
        document.services['egress-probe'] = {
          image: HELPER_IMAGE,
          command: ['sh', '-c', `while :; do wget -q -O /dev/null -T 2 -t 1 ${outside.url('/from-the-copy')} || true; sleep 1; done`],
          networks: ['stack'],
          deploy: { mode: 'replicated', replicas: 1, endpoint_mode: 'dnsrr' },
        };
        writeFileSync(stackFile, yaml.dump(document));
        const tasks = await serviceTasks(stack.project);
        const scratch = `${stack.project}-verify`;
        let verify;
        try {
          verify = await stack.script('backup.sh', ['--verify', dir], NEVER);
        } finally {
          writeFileSync(stackFile, original);
          await outside.stop();
        }
        assertSucceeded(verify, 'backup.sh --verify');
        assert.match(verify.stdout, /verified: .* restores/);
        assert.match(verify.stdout, /not started in the scratch stack: n8n \(not in the stack when/);
        assert.match(verify.stdout, /restored postgresql-data into the scratch volume/);
        assert.deepEqual(outside.heard(), [], 'what the scratch stack said to the stand-in for the internet');
        assert.deepEqual(await serviceTasks(stack.project), tasks, 'no service of the running stack was scaled or restarted');
        assert.equal(await sql('SELECT v FROM swarm_backup_marker'), 'after', 'the running stack keeps the row changed after the backup');
        const left = async (kind: string[]) => (await dockerOk([...kind, '-q', '--filter', `label=com.docker.stack.namespace=${scratch}`])).trim();
        assert.equal(await left(['service', 'ls']), '', 'no service of the scratch stack is left');
        assert.equal(await left(['volume', 'ls']), '', 'nor its volumes');
        assert.equal(await left(['secret', 'ls']), '', 'nor its secrets');
        assert.equal(await left(['network', 'ls']), '', 'nor its network');
        assert.equal(await left(['container', 'ls', '-a']), '', 'nor a container (a setup job\'s task outlives its removed service)');
      });

      test('backup.sh --verify whose scratch stack does not converge in time (STACK_START_TIMEOUT=1): exit non-zero, says so, and leaves nothing of the scratch stack', async () => {
        const dir = readdirSync(path.join(stack.dir, 'backups')).filter((d) => /^\d{8}T\d{6}Z$/.test(d)).sort().at(-1);
        assert.ok(dir, 'a backup from the test before');
        const tasks = await serviceTasks(stack.project);
        const verify = await stack.script('backup.sh', ['--verify', path.join('backups', dir)], { ...NEVER, STACK_START_TIMEOUT: '1' });
        assert.notEqual(verify.code, 0, verify.stdout);
        assert.match(verify.stderr, /the backup did not prove itself: the scratch stack did not converge/);
        const scratch = `${stack.project}-verify`;
        for (const kind of ['service', 'volume', 'secret', 'network', 'container']) {
          assert.equal((await dockerOk([kind, 'ls', ...(kind === 'container' ? ['-a'] : []), '-q', '--filter', `label=com.docker.stack.namespace=${scratch}`])).trim(), '', `no ${kind} of the scratch stack is left; backup.sh said:\n${verify.stdout}${verify.stderr}\n${await docker(['ps', '-a', '--filter', `label=com.docker.stack.namespace=${scratch}`]).then((r) => r.stdout)}`);
        }
        assert.deepEqual(await serviceTasks(stack.project), tasks, 'the running stack is untouched');
      });

      // two stops and redeploys of every service with data: minutes, so in the long run only (CI's time budget)
      test('scripts/backup.sh, then --restore: a row written before the backup is back after the restore; what it replaced is kept; every service converges', ciOrAll(false), async () => {
        const dir = await backupThenChange();
        const restore = await stack.script('backup.sh', ['--restore', dir], NEVER);
        assertSucceeded(restore, 'backup.sh --restore');
        assert.deepEqual(notConverged(await replicas(stack.project)), [], 'deployed again after the restore');
        assert.equal(await sql('SELECT v FROM swarm_backup_marker'), 'before');
        const kept = /scripts\/backup.sh --restore (backups\/before-restore-\S+) undoes it/.exec(restore.stdout)?.[1];
        assert.ok(kept && existsSync(path.join(stack.dir, kept, 'postgresql-data.tar.gz')), restore.stdout);
      });

      test('backup.sh --restore failing part-way (the last volume\'s archive lists whole but cannot be unpacked): every volume is put back as it was, the stack deployed again, exit non-zero', ciOrAll(false), async () => {
        const dir = await backupThenChange();
        const broken = path.join(stack.dir, 'backups', 'broken');
        cpSync(path.join(stack.dir, dir), broken, { recursive: true });
        const last = backupVolumes().at(-1)!;
        assert.notEqual(last, 'postgresql-data', 'the failing volume comes after the one the row lives in');
        writeFileSync(path.join(broken, `${last}.tar.gz`), gzipSync(unpackableTar()));
        const restore = await stack.script('backup.sh', ['--restore', broken], NEVER);
        assert.notEqual(restore.code, 0, restore.stdout);
        assert.match(restore.stdout, /restored postgresql-data/, 'the failure came after a volume was replaced');
        assert.match(restore.stderr, /putting back what the volumes held/);
        assert.match(restore.stderr, /nothing was restored: the volumes hold what they held before/);
        assert.deepEqual(notConverged(await replicas(stack.project)), [], 'deployed again after the failed restore');
        assert.equal(await sql('SELECT v FROM swarm_backup_marker'), 'after', 'the replaced volume was put back');
      });

      test('backup.sh interrupted (SIGINT to its process group) while it archives: no backup folder is left, partial or whole; the signal named; the stack deployed again', ciOrAll(false), async () => {
        const backups = () => (existsSync(path.join(stack.dir, 'backups')) ? readdirSync(path.join(stack.dir, 'backups')).sort() : []);
        const before = backups();
        const script = startScript(stack, 'backup.sh', []);
        await script.interruptAfter(/^saved /m);
        const { run } = script;
        assert.notEqual(await run.code, 0, run.stdout);
        assert.match(run.stderr, /interrupted by SIGINT/);
        assert.match(run.stderr, /no backup was written/);
        assert.deepEqual(backups(), before, 'the partial folder was removed');
        assert.deepEqual(notConverged(await replicas(stack.project)), [], 'deployed again after the interrupted backup');
      });

      test('backup.sh --restore interrupted (SIGINT to its process group) while it replaces the volumes: every volume is put back, the signal named, the stack deployed again', ciOrAll(false), async () => {
        const dir = await backupThenChange();
        const script = startScript(stack, 'backup.sh', ['--restore', dir]);
        await script.interruptAfter(/what the restore replaces is saved/);
        const { run } = script;
        assert.notEqual(await run.code, 0, run.stdout);
        // the folder named as given, absolute (the trap runs inside whatever function the signal interrupted)
        assert.ok(run.stderr.includes(`the restore of ${path.join(stack.dir, dir)} failed: interrupted by SIGINT`), run.stderr);
        assert.match(run.stderr, /nothing was restored: the volumes hold what they held before/);
        assert.deepEqual(notConverged(await replicas(stack.project)), [], 'deployed again after the interrupted restore');
        assert.equal(await sql('SELECT v FROM swarm_backup_marker'), 'after', 'every volume put back');
      });

      test('an update to a tag that does not exist is rolled back; .env names the previous image again', async () => {
        const previous = stack.env(`${update.toUpperCase().replace(/-/g, '_')}_IMAGE`);
        const image = (await dockerOk(['service', 'inspect', '--format', '{{.Spec.TaskTemplate.ContainerSpec.Image}}', `${stack.project}_${update}`])).trim();
        const result = await stack.script('update.sh', [`${update}=stackwright-test/missing:never-built`], { ...NEVER, STACK_START_TIMEOUT: '240' });
        assert.notEqual(result.code, 0, result.stdout);
        assert.match(result.stderr, /back on their previous images/);
        assert.equal(stack.env(`${update.toUpperCase().replace(/-/g, '_')}_IMAGE`), previous);
        assert.equal((await dockerOk(['service', 'inspect', '--format', '{{.Spec.TaskTemplate.ContainerSpec.Image}}', `${stack.project}_${update}`])).trim(), image, 'the service runs its previous image');
        assert.deepEqual(notConverged(await replicas(stack.project)), []);
      });

      // the other service the case updates: its image under a second name, so that its update completes
      const other = 'bookstack';
      const specImage = async (service: string) => (await dockerOk(['service', 'inspect', '--format', '{{.Spec.TaskTemplate.ContainerSpec.Image}}', `${stack.project}_${service}`])).trim();
      const imageVariable = (service: string) => `${service.toUpperCase().replace(/-/g, '_')}_IMAGE`;
      const otherName = async () => {
        const ref = 'stackwright-test/bookstack:other-name';
        await dockerOk(['tag', await specImage(other), ref]);
        return ref;
      };

      test('an update of two services, one to a tag that does not exist: both are back on their previous images, the one whose update completed too', async () => {
        const before = { [update]: await specImage(update), [other]: await specImage(other) };
        const envBefore = { [update]: stack.env(imageVariable(update)), [other]: stack.env(imageVariable(other)) };
        const result = await stack.script('update.sh', [`${update}=stackwright-test/missing:never-built`, `${other}=${await otherName()}`], { ...NEVER, STACK_START_TIMEOUT: '240' });
        assert.notEqual(result.code, 0, result.stdout);
        assert.deepEqual({ [update]: await specImage(update), [other]: await specImage(other) }, before, `each service runs its previous image; update.sh said:\n${result.stderr}`);
        assert.deepEqual({ [update]: stack.env(imageVariable(update)), [other]: stack.env(imageVariable(other)) }, envBefore, '.env names the previous images');
        assert.match(result.stderr, /back on their previous images/);
        assert.deepEqual(notConverged(await replicas(stack.project)), []);
      });

      test('update.sh interrupted (SIGINT to its process group, as a Ctrl-C) while Swarm updates: rolled back, .env as before, the signal named', async () => {
        const before = await specImage(other);
        const envBefore = stack.env(imageVariable(other));
        const script = startScript(stack, 'update.sh', [`${other}=${await otherName()}`]);
        // the deploy was sent and the script waits for the services: the update is Swarm's now
        await script.interruptAfter(/waiting up to/);
        const { run } = script;
        assert.notEqual(await run.code, 0, run.stdout);
        assert.equal(await specImage(other), before, `${other} runs its previous image; update.sh said:\n${run.stderr}`);
        assert.equal(stack.env(imageVariable(other)), envBefore, '.env names the previous image');
        assert.deepEqual(notConverged(await replicas(stack.project)), []);
        assert.match(run.stderr, /interrupted by SIGINT/);
        assert.match(run.stderr, /back on their previous images/);
      });
    }

    // deploy.sh has nothing to undo (Swarm goes on converging on what was deployed): a Ctrl-C says where it stopped
    test('deploy.sh interrupted (SIGINT to its process group) while it waits for the services: says where it stopped, exit 130; a re-run converges', async () => {
      const script = startScript(stack, 'deploy.sh', []);
      // the setup jobs run again on every deploy, so the wait lasts a few seconds
      await script.interruptAfter(/waiting up to/);
      const { run } = script;
      assert.equal(await run.code, 130, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stderr, /scripts\/deploy\.sh stopped, interrupted by SIGINT while waiting for the services to converge: .*run scripts\/deploy\.sh again to finish/);
      assertSucceeded(await stack.script('deploy.sh'), 'deploy.sh again');
      assert.deepEqual(notConverged(await replicas(stack.project)), []);
    });

    test('scripts/remove.sh removes the services and the stack\'s Swarm secrets; the volumes stay', async () => {
      assertSucceeded(await stack.script('remove.sh'), 'remove.sh');
      const label = `label=com.docker.stack.namespace=${stack.project}`;
      assert.equal((await dockerOk(['service', 'ls', '-q', '--filter', label])).trim(), '');
      assert.equal((await dockerOk(['secret', 'ls', '-q', '--filter', label])).trim(), '');
      assert.notEqual((await dockerOk(['volume', 'ls', '-q', '--filter', label])).trim(), '');
    });
  });
}
