// The stack scripts under faults, on the real engine (issue 33): a small stack (PostgreSQL, n8n as its
// consumer, Caddy in front, nanobot as the framework) meets a backup helper image that is missing with no
// registry, a full disk, SIGINT and SIGTERM at each step, the Docker daemon restarted during an update, an
// image that never turns healthy and two scripts at once. Every test asserts the promise of the scripts: a
// non-zero exit with a message naming the fault; afterwards every container that ran runs and is healthy; the
// database holds every row it held; no partial backup is left that looks whole; a re-run succeeds once the
// fault is gone.
//
// The steps are reached deterministically with a `docker` wrapper first on the script's PATH (written below):
// the Nth call whose arguments match FAULT_MATCH blocks, before or after running, until the test removes the
// gate file; or (during) runs in the foreground, as from a terminal, and marks the gate reached once the engine
// sends a stop signal to a container FAULT_EVENTS names. The scripts themselves carry no test hook.
//
// STACK_TEMPLATES_DIR=<dir> generates the stack from other templates (docs/testing.md: how these tests were
// run against the scripts of main to show each fails there).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { assertSucceeded, containerProblems } from './checks.js';
import { command, docker, dockerOk, engineProblem, requireEngine, type CommandResult } from './engine.js';
import { Stack } from './stack.js';
import { ciOrAll } from './tiers.js';

const HELPER = 'alpine:3.23';
// CI runs the backup faults before and after the stack is stopped (a missing image, no room, a signal after
// the stop) and two scripts at once; `npm run test:engine -- --all` runs the whole matrix (both signals at
// every step, mid-restore and mid-recreate, the daemon restarted mid-update, the disk filling mid-archive, an
// image that never turns healthy): about 35 minutes on this two-core machine, too long for every CI run
// (docs/testing.md lists which run where).
const ROWS = 250;

/** A `docker` that blocks at one call until the test lets it go (see the header). */
function writeWrapper(dir: string, realDocker: string): void {
  writeFileSync(path.join(dir, 'docker'), `#!/usr/bin/env bash
real=${JSON.stringify(realDocker)}
if [ -n "\${FAULT_MATCH:-}" ] && [[ "$*" =~ $FAULT_MATCH ]]; then
  n=$(( $(cat "$FAULT_GATE.count" 2>/dev/null || echo 0) + 1 ))
  echo "$n" > "$FAULT_GATE.count"
  if [ "$n" -eq "\${FAULT_NTH:-1}" ] && [ "\${FAULT_WHEN:-before}" = during ]; then
    # the call runs in the foreground (a Ctrl-C reaches it as from a terminal); the gate is reached once the
    # engine has sent the stop signal to a container FAULT_EVENTS names (docker events filters)
    since=$(date +%s) filters=()
    for f in $FAULT_EVENTS; do filters+=(--filter "$f"); done
    ( read -r _ < <("$real" events --since "$since" --until "$((since + 120))" --filter event=kill "\${filters[@]}") && : > "$FAULT_GATE.reached" ) </dev/null >/dev/null 2>&1 &
    "$real" "$@"
    exit $?
  fi
  if [ "$n" -eq "\${FAULT_NTH:-1}" ]; then
    rc=0
    if [ "\${FAULT_WHEN:-before}" = after ]; then "$real" "$@"; rc=$?; fi
    : > "$FAULT_GATE"
    : > "$FAULT_GATE.reached"
    while [ -e "$FAULT_GATE" ]; do sleep 0.2; done
    [ "\${FAULT_WHEN:-before}" = after ] && exit "$rc"
  fi
fi
exec "$real" "$@"
`, { mode: 0o755 });
}

interface Running { pid: number; done: Promise<CommandResult> }

/** Whether a process runs: a zombie (ended, not yet reaped by its parent) has ended. */
function processRuns(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('stack scripts under faults: the stack is left as it was found, nothing is lost', { concurrency: false }, () => {
  let stack: Stack;
  let bin: string;
  let gates: string;
  let gateCount = 0;
  /** Scripts started by a test, so that a failed assertion never leaves one blocked behind it. */
  let started: (Running & { gate?: string })[] = [];
  let n8nImage: string;
  /** The image id n8nImage names: each test starts with n8n on it, whatever an earlier (failed) test left. */
  let pinnedN8n: string;

  const sql = (statement: string): Promise<string> => stack.sql(statement);
  const rows = () => sql('select count(*) from faults');
  const backups = (): string[] => (existsSync(path.join(stack.dir, 'backups')) ? readdirSync(path.join(stack.dir, 'backups')).filter((d) => !d.startsWith('.')).sort() : []);
  const n8nRuns = async (): Promise<string> => {
    const id = (await stack.compose(['ps', '-q', 'n8n'])).stdout.trim();
    return (await dockerOk(['inspect', '--format', '{{.Image}}', id])).trim();
  };

  /** A stack script in a process group of its own (as from a terminal), blocked where fault says. */
  function startScript(name: string, args: string[], fault?: { match: string; nth?: number; when?: 'before' | 'after' | 'during' }, env: Record<string, string> = {}): Running & { gate?: string } {
    const gate = fault ? path.join(gates, `gate-${++gateCount}`) : undefined;
    const child = spawn('bash', [path.join(stack.dir, 'scripts', name), ...args], {
      cwd: stack.dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        ...(fault ? { FAULT_MATCH: fault.match, FAULT_NTH: String(fault.nth ?? 1), FAULT_WHEN: fault.when ?? 'before', FAULT_GATE: gate } : {}),
        ...env,
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const done = new Promise<CommandResult>((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr })));
    const run = { pid: child.pid!, done, gate };
    started.push(run);
    return run;
  }

  /** Until the script reached its gate (or ended without reaching it: then its output says why). */
  async function reached(run: Running & { gate?: string }): Promise<void> {
    let ended: CommandResult | undefined;
    void run.done.then((r) => { ended = r; });
    for (let i = 0; i < 3000; i++) {
      if (existsSync(`${run.gate}.reached`)) return;
      if (ended) assert.fail(`the script ended (exit ${ended.code}) before it reached the fault:\n${ended.stderr}\n${ended.stdout}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.fail('the script did not reach the fault within 10 minutes');
  }
  const release = (run: { gate?: string }) => rmSync(run.gate!, { force: true });

  /** The signal at the script's gate (a Ctrl-C reaches the whole process group, a kill the script), then its end:
   * non-zero. Whether it names the signal is asserted after the state of the stack (namesSignal), so that a run
   * against older scripts fails on what the fault did to the stack, not first on the wording. */
  async function interrupt(run: Running & { gate?: string }, signal: 'SIGINT' | 'SIGTERM'): Promise<CommandResult> {
    await reached(run);
    process.kill(signal === 'SIGINT' ? -run.pid : run.pid, signal);
    release(run);
    const result = await run.done;
    assert.notEqual(result.code, 0, `exit 0 after ${signal}:\n${result.stdout}`);
    return result;
  }
  const namesSignal = (result: CommandResult, signal: string) => assert.match(result.stderr, new RegExp(`interrupted by ${signal}`));

  /** The promise of the scripts, after a fault: every container healthy, every row there. */
  async function asBefore(want: string): Promise<void> {
    assert.deepEqual(containerProblems(await stack.containers()).filter((p) => !/restarted/.test(p)), [], 'every container that ran runs and is healthy');
    assert.equal(await rows(), want, 'the database holds every row it held');
  }
  /** No folder in backups/ that was not there before the fault. */
  function noPartialBackup(before: string[]): void {
    assert.deepEqual(backups(), before, 'no partial backup is left');
  }

  before(async () => {
    await requireEngine();
    stack = await Stack.generate({ name: 'e2e-faults', primaryFramework: 'nanobot', services: ['postgresql', 'n8n'], proxy: 'caddy' });
    await stack.provideImages();
    stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test' });
    const real = (await command('sh', ['-c', 'command -v docker'])).stdout.trim();
    bin = mkdtempSync(path.join(os.tmpdir(), 'stackwright-faults-bin-'));
    gates = mkdtempSync(path.join(os.tmpdir(), 'stackwright-faults-gates-'));
    writeWrapper(bin, real);
    assertSucceeded(await stack.script('start.sh'), 'start.sh');
    await sql(`create table faults (id int primary key, body text); insert into faults select g, 'row ' || g from generate_series(1, ${ROWS}) g`);
    n8nImage = stack.env('N8N_IMAGE') ?? 'n8nio/n8n:1.123.81';
    pinnedN8n = (await dockerOk(['image', 'inspect', '--format', '{{.Id}}', n8nImage])).trim();
  });
  after(async () => {
    await command('umount', [path.join(stack.dir, 'backups')]);
    await stack?.remove();
    rmSync(bin, { recursive: true, force: true });
    rmSync(gates, { recursive: true, force: true });
  });

  // each test starts from a healthy stack, whatever the one before left (it matters when a test fails: run
  // against older scripts, a fault leaves the stack stopped)
  beforeEach(async () => {
    if (stack.env('N8N_IMAGE') !== n8nImage || await n8nRuns().catch(() => '') !== pinnedN8n) {
      stack.setEnv('N8N_IMAGE', n8nImage);
      assertSucceeded(await stack.compose(['up', '-d', '--remove-orphans', '--wait', '--wait-timeout', '300']), 'n8n back on its pinned image before the test');
    }
    if (containerProblems(await stack.containers()).filter((p) => !/restarted/.test(p)).length) assertSucceeded(await stack.script('start.sh'), 'start.sh before the test');
  });
  afterEach(async () => {
    for (const run of started) {
      if (run.gate) release(run);
      const late = setTimeout(() => { try { process.kill(-run.pid, 'SIGKILL'); } catch { /* gone */ } }, 600_000);
      await run.done;
      clearTimeout(late);
    }
    started = [];
  });

  test('backup.sh: the helper image missing and no registry: refused before anything stops; a re-run succeeds once the image is back', async () => {
    const want = await rows();
    const before = backups();
    await dockerOk(['tag', HELPER, 'stackwright-test/helper-away:faults']);
    await dockerOk(['rmi', HELPER]);
    let result: CommandResult;
    try {
      result = await stack.script('backup.sh');
    } finally {
      await dockerOk(['tag', 'stackwright-test/helper-away:faults', HELPER]);
      await dockerOk(['rmi', 'stackwright-test/helper-away:faults']);
    }
    assert.notEqual(result.code, 0, 'a backup without its helper is not reported as done');
    await asBefore(want);
    noPartialBackup(before);
    assert.match(result.stderr, /helper image alpine:3\.23 is not on this engine and could not be pulled/);
    assertSucceeded(await stack.script('backup.sh'), 'backup.sh once the helper image is back');
    await asBefore(want);
  });

  test('backup.sh: too little free space in backups/ (a 64 KiB tmpfs): refused before anything stops', async () => {
    const want = await rows();
    const folder = path.join(stack.dir, 'backups');
    mkdirSync(folder, { recursive: true });
    const saved = mkdtempSync(path.join(os.tmpdir(), 'stackwright-faults-saved-'));
    await command('sh', ['-c', 'cp -a "$1"/. "$2"/', 'sh', folder, saved]);
    assertSucceeded(await command('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', folder]), 'mount a 64 KiB tmpfs');
    try {
      const result = await stack.script('backup.sh');
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /not enough free space|No space left on device/);
      await asBefore(want);
      noPartialBackup([]);
    } finally {
      await command('umount', [folder]);
      await command('sh', ['-c', 'cp -a "$1"/. "$2"/ && rm -rf "$1"', 'sh', saved, folder]);
    }
  });

  test('backup.sh: the disk fills up during the archive: the partial backup goes, the stack runs again; a re-run succeeds', ciOrAll(false), async () => {
    const want = await rows();
    const folder = path.join(stack.dir, 'backups');
    const saved = mkdtempSync(path.join(os.tmpdir(), 'stackwright-faults-saved-'));
    await command('sh', ['-c', 'cp -a "$1"/. "$2"/', 'sh', folder, saved]);
    // room for the precheck (the volumes' size), then filled once the stack is stopped
    assertSucceeded(await command('mount', ['-t', 'tmpfs', '-o', 'size=1g', 'tmpfs', folder]), 'mount a tmpfs');
    try {
      const run = startScript('backup.sh', [], { match: 'tar czf' });
      await reached(run);
      await command('sh', ['-c', 'dd if=/dev/zero of="$1/filler" bs=1M 2>/dev/null; true', 'sh', folder]);
      release(run);
      const result = await run.done;
      assert.notEqual(result.code, 0, 'a backup into a full disk is not reported as done');
      assert.match(result.stderr, /No space left on device/);
      rmSync(path.join(folder, 'filler'), { force: true });
      await asBefore(want);
      noPartialBackup([]);
      assertSucceeded(await stack.script('backup.sh'), 'backup.sh once there is room');
    } finally {
      await command('umount', [folder]);
      await command('sh', ['-c', 'cp -a "$1"/. "$2"/ && rm -rf "$1"', 'sh', saved, folder]);
    }
    await asBefore(want);
  });

  // before anything stops, backup.sh measures each volume (room_for, a helper container each): a Ctrl-C there
  // once left its new, empty folder in backups/, named like a backup, and ended without a word
  test('backup.sh: SIGINT while it measures the room for the backup: the empty folder goes, nothing stopped, and it says so', async () => {
    const want = await rows();
    const before = backups();
    const run = startScript('backup.sh', [], { match: 'du -sk' });
    const result = await interrupt(run, 'SIGINT');
    await asBefore(want);
    noPartialBackup(before);
    namesSignal(result, 'SIGINT');
    assert.match(result.stderr, /nothing was stopped or changed/);
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const [step, nth] of [['after the stop', 1], ['mid-archive', 2]] as const) {
      test(`backup.sh: ${signal} ${step}: what ran starts again, the partial backup goes; a re-run succeeds`, ciOrAll(signal === 'SIGTERM' && nth === 1), async () => {
        const want = await rows();
        const before = backups();
        const run = startScript('backup.sh', [], { match: 'tar czf', nth });
        const result = await interrupt(run, signal);
        await asBefore(want);
        noPartialBackup(before);
        namesSignal(result, signal);
        assertSucceeded(await stack.script('backup.sh'), 'backup.sh again');
        await asBefore(want);
      });
    }
  }

  /**
   * `image` taking 6 s to stop, as a server finishing its requests does: a shell in front of its entrypoint
   * passes SIGTERM on after 6 s. Tagged stackwright-test/<name>-slow-stop:faults.
   */
  async function slowStopping(image: string, name: string): Promise<string> {
    const ref = `stackwright-test/${name}-slow-stop:faults`;
    const config = JSON.parse(await dockerOk(['image', 'inspect', '--format', '{{json .Config}}', image])) as { Entrypoint: string[] | null; Cmd: string[] | null; User: string };
    const wrapper = ['#!/bin/sh', '"$@" & child=$!', 'trap \'sleep 6; kill -TERM "$child"\' TERM', 'wait "$child"; wait "$child"', ''].join('\n');
    await dockerOk(['build', '-q', '-t', ref, '-'], {
      input: [
        `FROM ${image}`,
        'USER root',
        `RUN echo ${Buffer.from(wrapper).toString('base64')} | base64 -d > /slow-stop && chmod 755 /slow-stop`,
        `USER ${config.User || 'root'}`,
        `ENTRYPOINT ${JSON.stringify(['/slow-stop', ...(config.Entrypoint ?? [])])}`,
        // an ENTRYPOINT resets the CMD an image inherits: it is given again
        ...(config.Cmd ? [`CMD ${JSON.stringify(config.Cmd)}`] : []),
        '',
      ].join('\n'),
    });
    return ref;
  }
  /** The stop signal sent to `service`'s container (docker events filters for the wrapper's `during` gate). */
  const stopOf = (service: string) => ({ FAULT_EVENTS: `label=com.docker.compose.project=${stack.project} label=com.docker.compose.service=${service}` });
  const onImage = async (service: string, variable: string, image: string) => {
    stack.setEnv(variable, image);
    assertSucceeded(await stack.compose(['up', '-d', '--wait', '--wait-timeout', '300', service]), `${service} on ${image}`);
  };

  // A Ctrl-C reaches Compose too: it gives up while a container is still stopping (the engine carries on with
  // the stop), and that container ends after Compose has gone. Starting what ran must wait for it, not take a
  // stopping container for a running one. Here Caddy takes 6 s to stop (slowStopping).
  test('backup.sh: SIGINT while Compose stops the stack, Caddy still stopping: what ran starts again, the partial backup goes', async () => {
    const want = await rows();
    const before = backups();
    const caddyImage = stack.env('CADDY_IMAGE') ?? 'caddy:2.11.4-alpine';
    try {
      await onImage('caddy', 'CADDY_IMAGE', await slowStopping(caddyImage, 'caddy'));
      const run = startScript('backup.sh', [], { match: '^compose stop$', when: 'during' }, stopOf('caddy'));
      const result = await interrupt(run, 'SIGINT');
      // a Caddy still stopping when the script ended has ended by now
      await new Promise((r) => setTimeout(r, 8000));
      await asBefore(want);
      noPartialBackup(before);
      namesSignal(result, 'SIGINT');
    } finally {
      await onImage('caddy', 'CADDY_IMAGE', caddyImage);
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`restore: ${signal} mid-restore: the volumes hold what they held and what ran runs; a re-run completes the restore`, ciOrAll(false), async () => {
      // a whole backup to restore (the backup tests before leave one; a run of this test alone makes one)
      if (!backups().some((d) => /^\d{8}T/.test(d))) assertSucceeded(await stack.script('backup.sh'), 'backup.sh for the restore');
      const source = path.join('backups', backups().filter((d) => /^\d{8}T/.test(d)).at(-1)!);
      await sql(`insert into faults values (${ROWS + 1}, 'after the backup') on conflict (id) do nothing`);
      const want = await rows();
      // the first volume's archive unpacked (its content already replaced), the restore not yet done
      const run = startScript('backup.sh', ['restore', source], { match: 'tar xzf', when: 'after' });
      const result = await interrupt(run, signal);
      await asBefore(want);
      namesSignal(result, signal);
      assert.match(result.stderr, /nothing was restored/);
      const again = await stack.script('backup.sh', ['restore', source]);
      assertSucceeded(again, 'the restore again');
      assert.match(again.stdout, /scripts\/backup\.sh restore \S+before-restore-\S+ undoes this restore/);
      assertSucceeded(await stack.script('start.sh'), 'start.sh after the restore');
      assert.equal(await rows(), String(ROWS), 'the restore brought back what the backup held');
    });
  }

  /** The n8n image with one label more: another image under another tag, already on the engine. */
  async function nextN8n(tag: string, dockerfileTail = ''): Promise<string> {
    const ref = `stackwright-test/n8n-${tag}:faults`;
    await dockerOk(['build', '-q', '-t', ref, '-'], { input: `FROM ${n8nImage}\nLABEL org.stackwright.test=${tag}\n${dockerfileTail}` });
    return ref;
  }
  async function backToPinned(): Promise<void> {
    stack.setEnv('N8N_IMAGE', n8nImage);
    assertSucceeded(await stack.script('update.sh', ['--no-backup']), 'update.sh back to the pinned image');
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`update.sh: ${signal} mid-recreate: the previous images run again; a re-run succeeds`, ciOrAll(false), async () => {
      const want = await rows();
      const old = await n8nRuns();
      stack.setEnv('N8N_IMAGE', await nextN8n('next'));
      const run = startScript('update.sh', ['--no-backup'], { match: '^compose up -d --remove-orphans$', when: 'after' });
      const result = await interrupt(run, signal);
      assert.equal(await n8nRuns(), old, 'n8n runs its image from before the update');
      await asBefore(want);
      assert.equal(stack.env('N8N_IMAGE'), n8nImage, '.env names the image that runs');
      namesSignal(result, signal);
      assert.match(result.stderr, /rolled back to the previous images/);
      stack.setEnv('N8N_IMAGE', await nextN8n('next'));
      assertSucceeded(await stack.script('update.sh', ['--no-backup']), 'update.sh again');
      assert.notEqual(await n8nRuns(), old);
      await backToPinned();
      await asBefore(want);
    });
  }

  // Compose recreates a container in steps (the old one stopped, renamed and removed, a new one made under its
  // name); a Ctrl-C reaches Compose while the old n8n is still stopping (it takes 6 s: slowStopping)
  test('update.sh: SIGINT while Compose recreates n8n, its old container still stopping: the previous images run again; a re-run succeeds', async () => {
    const want = await rows();
    try {
      const before = await slowStopping(n8nImage, 'n8n');
      await onImage('n8n', 'N8N_IMAGE', before);
      const old = await n8nRuns();
      stack.setEnv('N8N_IMAGE', await nextN8n('next'));
      const run = startScript('update.sh', ['--no-backup'], { match: '^compose up -d --remove-orphans$', when: 'during' }, stopOf('n8n'));
      const result = await interrupt(run, 'SIGINT');
      // an old n8n still stopping when the script ended has ended by now
      await new Promise((r) => setTimeout(r, 8000));
      await asBefore(want);
      assert.equal(await n8nRuns(), old, 'n8n runs its image from before the update');
      assert.equal(stack.env('N8N_IMAGE'), before, '.env names the image that runs');
      namesSignal(result, 'SIGINT');
      stack.setEnv('N8N_IMAGE', await nextN8n('next'));
      assertSucceeded(await stack.script('update.sh', ['--no-backup']), 'update.sh again');
      assert.notEqual(await n8nRuns(), old);
    } finally {
      await onImage('n8n', 'N8N_IMAGE', n8nImage);
    }
    await asBefore(want);
  });

  test('update.sh: the Docker daemon restarted during the recreate: the update waits for it and rolls back; --rollback works after', ciOrAll(false), async () => {
    const want = await rows();
    const old = await n8nRuns();
    stack.setEnv('N8N_IMAGE', await nextN8n('next'));
    const run = startScript('update.sh', ['--no-backup'], { match: '^compose up -d --remove-orphans$' });
    await reached(run);
    const pid = (await command('pgrep', ['-x', 'dockerd'])).stdout.trim().split('\n')[0];
    assert.ok(pid, 'dockerd runs');
    process.kill(Number(pid), 'SIGTERM');
    for (let i = 0; i < 240 && processRuns(Number(pid)); i++) await new Promise((r) => setTimeout(r, 500));
    assert.ok(!processRuns(Number(pid)), 'dockerd ended within 2 minutes of SIGTERM');
    release(run);
    await new Promise((r) => setTimeout(r, 5000));
    const problem = await engineProblem();
    assert.equal(problem, undefined, 'dockerd started again');
    const result = await run.done;
    assert.notEqual(result.code, 0);
    assert.equal(await n8nRuns(), old, 'n8n runs its image from before the update');
    await asBefore(want);
    assert.equal(stack.env('N8N_IMAGE'), n8nImage, '.env names the image that runs');
    assert.match(result.stderr, /Docker daemon does not answer/);
    assert.match(result.stderr, /rolled back to the previous images/);
    stack.setEnv('N8N_IMAGE', await nextN8n('next'));
    assertSucceeded(await stack.script('update.sh', ['--no-backup']), 'update.sh again');
    assertSucceeded(await stack.script('update.sh', ['--rollback']), 'update.sh --rollback');
    assert.equal(await n8nRuns(), old, 'the rollback returned to the image before the update');
    await backToPinned();
    await asBefore(want);
  });

  test('update.sh: an image that never turns healthy: rolled back by itself, the stack as before', ciOrAll(false), async () => {
    const want = await rows();
    const old = await n8nRuns();
    // the stand-in without its ports: the health check never passes
    stack.setEnv('N8N_IMAGE', await nextN8n('broken', `RUN node -e "const fs=require('fs');const f='/standin/config.json';const c=JSON.parse(fs.readFileSync(f));c.ports=[];fs.writeFileSync(f,JSON.stringify(c))"\n`));
    const result = await stack.script('update.sh', ['--no-backup'], { STACK_START_TIMEOUT: '45' });
    assert.notEqual(result.code, 0);
    assert.equal(await n8nRuns(), old, 'n8n runs its image from before the update');
    await asBefore(want);
    assert.match(result.stderr, /did not all become healthy|not healthy yet/);
    assert.match(result.stderr, /rolled back to the previous images/);
    await backToPinned();
  });

  test('update.sh on a stopped stack: an image that never turns healthy: the images from before put back, the stack stopped as it was', ciOrAll(false), async () => {
    const want = await rows();
    const old = await n8nRuns();
    assertSucceeded(await stack.script('stop.sh'), 'stop.sh');
    const broken = await nextN8n('broken', `RUN node -e "const fs=require('fs');const f='/standin/config.json';const c=JSON.parse(fs.readFileSync(f));c.ports=[];fs.writeFileSync(f,JSON.stringify(c))"\n`);
    stack.setEnv('N8N_IMAGE', broken);
    const result = await stack.script('update.sh', ['--no-backup'], { STACK_START_TIMEOUT: '45' });
    assert.notEqual(result.code, 0);
    const n8nId = (await stack.compose(['ps', '-a', '-q', 'n8n'])).stdout.trim();
    assert.equal((await dockerOk(['inspect', '--format', '{{.Image}}', n8nId])).trim(), old, 'n8n holds its image from before the update');
    assert.equal(stack.env('N8N_IMAGE'), n8nImage, '.env names the image from before the update');
    assert.deepEqual((await stack.compose(['ps', '-q', '--status', 'running'])).stdout.trim(), '', 'the stack is stopped, as it was found');
    assert.match(result.stderr, /rolled back to the previous images/);
    assertSucceeded(await stack.script('start.sh'), 'start.sh');
    await asBefore(want);
  });

  // start.sh has nothing to undo (what it started is what the user asked for): a Ctrl-C ends it saying where it was
  // and how to finish, with every container as it was left and nothing removed
  test('start.sh: SIGINT before Compose starts the stopped n8n: says where it stopped, nothing removed; a re-run starts it', async () => {
    const want = await rows();
    assertSucceeded(await stack.compose(['stop', 'n8n']), 'docker compose stop n8n');
    const run = startScript('start.sh', [], { match: '^compose up -d --remove-orphans$' });
    const result = await interrupt(run, 'SIGINT');
    assert.equal(result.code, 130, result.stderr);
    const states = new Map((await stack.containers()).map((c) => [c.service, c.status]));
    assert.notEqual(states.get('n8n'), 'running', 'n8n was left as the script found it');
    assert.deepEqual(containerProblems((await stack.containers()).filter((c) => c.service !== 'n8n')).filter((p) => !/restarted/.test(p)), [], 'what ran runs');
    assert.ok(existsSync(path.join(stack.dir, '.env')), '.env is kept');
    assert.match(result.stderr, /scripts\/start\.sh stopped, interrupted by SIGINT while Compose pulled the images and started the containers: .*run scripts\/start\.sh again to finish/);
    assertSucceeded(await stack.script('start.sh'), 'start.sh again');
    await asBefore(want);
  });

  test('two scripts at once: the second waits, names the first and its pid, and changes nothing; it runs once the first is done', async () => {
    const want = await rows();
    const before = backups();
    const first = startScript('backup.sh', [], { match: 'tar czf' });
    await reached(first);
    const second = await stack.script('update.sh', ['--no-backup'], { STACK_LOCK_WAIT: '3' });
    assert.notEqual(second.code, 0, 'the second script does not run beside the first');
    assert.match(second.stderr, new RegExp(`scripts/backup\\.sh \\(pid ${first.pid}\\) holds the lock`));
    release(first);
    assertSucceeded(await first.done, 'the first script');
    assert.equal(backups().length, before.length + 1);
    assertSucceeded(await stack.script('update.sh', ['--no-backup']), 'the second once the first is done');
    await asBefore(want);
  });

  test('the Docker engine answers after the faults', async () => {
    assert.equal((await docker(['info', '--format', '{{.ServerVersion}}'])).code, 0);
  });
});
