// The bare-metal installers under faults (issue 33): a generated native/ollama.sh run as root, the way its
// README says, inside a container of the tier's Debian base, which stands for the user's machine (its own
// /etc, /opt, users and no network). Two programs are replaced there: `systemctl` records its calls and keeps
// units as files (with /run/systemd/system present, so the script takes its systemd path), and `curl`
// fails like an unreachable download host, or blocks until the test lets it go, instead of fetching
// Ollama's release. Every test asserts the installer's promise: a failed or interrupted install puts back
// the environment file, launcher and unit it replaced and restarts the unit that ran (a first install leaves
// none of them), says what happened and exits non-zero; a re-run once the fault is gone succeeds.
//
// What it does not prove: systemd itself (the recording systemctl starts nothing), the real release download.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { command, docker, dockerOk, requireEngine, type CommandResult } from './engine.js';
import { BASE_IMAGE, ensureBase } from './images.js';
import { Stack } from './stack.js';

const STACK = 'native-faults';
const UNIT = `stackwright-${STACK}-ollama.service`;
const ENV_FILE = `/etc/stackwright/${STACK}/ollama.env`;
const LAUNCHER = `/etc/stackwright/${STACK}/ollama.run`;
const UNIT_FILE = `/etc/systemd/system/${UNIT}`;
const INSTALLED = '/opt/stackwright/ollama';
const CONTAINER = 'stackwright-test-native-faults';

/** The replaced programs, first on the installer's PATH inside the container. */
const FAKES: Record<string, string> = {
  systemctl: `#!/usr/bin/env bash
# records each call; a unit "runs" while /run/fake-units/<unit> exists
echo "$*" >> /run/systemctl.log
mkdir -p /run/fake-units
case "$1" in
  is-active) [ -e "/run/fake-units/\${*: -1}" ] ;;
  restart|start) touch "/run/fake-units/$2" ;;
  enable) if [ "$2" = --now ]; then touch "/run/fake-units/$3"; fi ;;
  stop) rm -f "/run/fake-units/$2" ;;
  *) ;;
esac
`,
  curl: `#!/usr/bin/env bash
# /run/curl-gate: block until the test removes it; /run/curl-fail: fail as an unreachable host does
if [ -e /run/curl-gate ]; then : > /run/curl-gate.reached; while [ -e /run/curl-gate ]; do sleep 0.2; done; fi
if [ -e /run/curl-fail ]; then echo "curl: (6) Could not resolve host: github.com" >&2; exit 6; fi
# the release bundle: bin/ollama in a tar (zstd below is cat)
d=$(mktemp -d); mkdir -p "$d/bin"; printf '#!/bin/sh\\necho ollama\\n' > "$d/bin/ollama"; chmod 755 "$d/bin/ollama"
tar -C "$d" -c .
`,
  zstd: '#!/bin/sh\nexec cat\n',
};

describe('bare-metal installers under faults: what an install replaces comes back, the unit runs as before', { concurrency: false }, () => {
  let stack: Stack;

  const inside = (script: string): Promise<CommandResult> => docker(['exec', CONTAINER, 'bash', '-c', script], { timeoutMs: 300_000 });
  const install = (): Promise<CommandResult> => inside('PATH=/stack/.fakes:$PATH bash native/ollama.sh');
  /** The installer's files and the unit's state, as one comparable record. */
  const installed = async (): Promise<Record<string, string>> => {
    const state: Record<string, string> = {};
    for (const file of [ENV_FILE, LAUNCHER, UNIT_FILE]) {
      const read = await inside(`cat ${file}`);
      state[file] = read.code === 0 ? read.stdout : '(absent)';
    }
    state.unit = (await inside(`test -e /run/fake-units/${UNIT}`)).code === 0 ? 'runs' : 'stopped';
    return state;
  };
  const setKeepAlive = (value: string) => inside(`sed -i 's/^OLLAMA_OLLAMA_KEEP_ALIVE=.*/OLLAMA_OLLAMA_KEEP_ALIVE=${value}/' .env && grep -q '^OLLAMA_OLLAMA_KEEP_ALIVE=${value}$' .env`);

  before(async () => {
    await requireEngine();
    await ensureBase();
    stack = await Stack.generate({ name: STACK, primaryFramework: 'openclaw', services: ['ollama'], deploymentType: 'bare-metal' });
    stack.writeEnv({});
    mkdirSync(path.join(stack.dir, '.fakes'), { recursive: true });
    for (const [name, text] of Object.entries(FAKES)) writeFileSync(path.join(stack.dir, '.fakes', name), text, { mode: 0o755 });
    await docker(['rm', '-f', CONTAINER]);
    await dockerOk(['run', '-d', '--init', '--network', 'none', '--name', CONTAINER, '-v', `${stack.dir}:/stack`, '-w', '/stack', BASE_IMAGE, 'sleep', 'infinity']);
    await dockerOk(['exec', CONTAINER, 'mkdir', '-p', '/run/systemd/system']);
    // the test's own variable, so that a re-install has something to change
    assert.equal((await inside('grep -q "^OLLAMA_OLLAMA_KEEP_ALIVE=" .env')).code, 0, '.env names OLLAMA_OLLAMA_KEEP_ALIVE');
  });
  after(async () => {
    await docker(['rm', '-f', CONTAINER]);
    // files the root in the container made in the stack folder
    if (stack) await command('rm', ['-rf', path.dirname(stack.dir)]);
  });

  test('a first install whose download fails leaves no environment, launcher or unit, and says so', async () => {
    await inside(': > /run/curl-fail');
    const result = await install();
    assert.notEqual(result.code, 0, 'a failed install is not reported as done');
    assert.deepEqual(await installed(), { [ENV_FILE]: '(absent)', [LAUNCHER]: '(absent)', [UNIT_FILE]: '(absent)', unit: 'stopped' });
    assert.match(result.stderr, /Could not resolve host/);
    assert.match(result.stderr, /installing Ollama failed: .* stays stopped/);
  });

  let first: Record<string, string>;
  test('the same install once the download works: environment, launcher and unit written, the unit runs', async () => {
    await inside('rm -f /run/curl-fail');
    const result = await install();
    assert.equal(result.code, 0, result.stderr);
    first = await installed();
    assert.equal(first.unit, 'runs');
    assert.match(first[ENV_FILE], /^OLLAMA_KEEP_ALIVE=/m);
    assert.match(first[UNIT_FILE], /^ExecStart=\/etc\/stackwright\/native-faults\/ollama\.run$/m);
  });

  test('a re-install whose download fails puts back what it replaced and restarts the unit', async () => {
    assert.equal((await setKeepAlive('42m')).code, 0);
    await inside(`rm -rf ${INSTALLED} && : > /run/curl-fail && : > /run/systemctl.log`);
    const result = await install();
    assert.notEqual(result.code, 0);
    assert.deepEqual(await installed(), first, 'the files from before the re-install, the unit running');
    assert.match(result.stderr, /installing Ollama failed: .* runs again/);
    assert.match((await inside('cat /run/systemctl.log')).stdout, new RegExp(`^restart ${UNIT.replace(/\./g, '\\.')}$`, 'm'), 'the unit was restarted on the old files');
  });

  test('SIGTERM during a re-install: the same, and the message names the signal', async () => {
    await inside('rm -f /run/curl-fail && : > /run/curl-gate && rm -f /run/curl-gate.reached /run/rc');
    await dockerOk(['exec', '-d', CONTAINER, 'bash', '-c', 'PATH=/stack/.fakes:$PATH bash native/ollama.sh > /run/out 2>&1 & echo $! > /run/pid; wait $!; echo $? > /run/rc']);
    for (let i = 0; i < 300 && (await inside('test -e /run/curl-gate.reached')).code !== 0; i++) await new Promise((r) => setTimeout(r, 200));
    assert.equal((await inside('test -e /run/curl-gate.reached')).code, 0, 'the install reached its download');
    await inside('kill -TERM "$(cat /run/pid)"; rm -f /run/curl-gate');
    for (let i = 0; i < 300 && (await inside('test -e /run/rc')).code !== 0; i++) await new Promise((r) => setTimeout(r, 200));
    const rc = (await inside('cat /run/rc')).stdout.trim();
    const out = (await inside('cat /run/out')).stdout;
    assert.notEqual(rc, '0', `exit 0 after SIGTERM:\n${out}`);
    assert.deepEqual(await installed(), first, 'the files from before the re-install, the unit running');
    assert.match(out, /installing Ollama failed: interrupted by SIGTERM: .* runs again/);
  });

  test('a re-run once the fault is gone installs the new setting', async () => {
    const result = await install();
    assert.equal(result.code, 0, result.stderr);
    const now = await installed();
    assert.equal(now.unit, 'runs');
    assert.match(now[ENV_FILE], /^OLLAMA_KEEP_ALIVE="42m"$/m);
  });
});
