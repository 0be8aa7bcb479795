// The generated scripts run for real, against a stand-in `docker` on PATH that records its calls:
// .env creation, secret filling, re-runs that keep .env, required keys, backups.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { envExampleKeys, writeBundle } from '../support/bundle.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 100);

/**
 * A bundle on disk plus a recording `docker` first on PATH that logs each call and answers like a
 * healthy daemon. The real engine is not run here: these tests hold the order of the scripts' steps.
 * FAKE_PORT_HOLDER=<port>=<name> makes a container of another project hold a port; FAKE_SS fakes `ss`
 * output; FAKE_UNHEALTHY_UNTIL_TAG keeps containers unhealthy until a `docker tag` (a rollback) ran;
 * FAKE_PULL_FAIL=<ref> makes the pull of the redis service fail as a registry does for a tag it lacks;
 * FAKE_PRESENT=<ref> is the one image the engine already holds. FAKE_STOPPED=<file>: while it exists no
 * container runs (they exist);
 * FAKE_NO_CONTAINERS: none exists; FAKE_NO_HELPER: the helper image cannot be pulled (no registry);
 * FAKE_VOLUME_KB: what du says each volume holds; FAKE_TAR_FAIL: the archive fails as on a full disk;
 * FAKE_UP_FAIL: \`compose up\` fails as it does when a port is taken after the scripts' own check.
 */
function setup(request: Parameters<Generator['generate']>[0], opts: { noDocker?: boolean } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-scripts-'));
  const dir = path.join(root, request.name);
  writeBundle(dir, generator.generate(request).files);
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  const log = path.join(root, 'docker.log');
  if (!opts.noDocker) {
    fs.writeFileSync(path.join(bin, 'docker'), `#!/usr/bin/env bash
echo "$*" >> ${JSON.stringify(log)}
case "$*" in
  # FAKE_STOPPED (a file): nothing runs until a \`compose up\` removes it
  "compose up"*)
    if [ -n "\${FAKE_UP_FAIL:-}" ]; then echo 'Error response from daemon: driver failed programming external connectivity on endpoint x-caddy-1: Bind for 127.0.0.1:80 failed: port is already allocated' >&2; exit 1; fi
    [ -z "\${FAKE_STOPPED:-}" ] || rm -f "\$FAKE_STOPPED" ;;
  "compose ps -q") [ -e "\${FAKE_STOPPED:-/nonexistent}" ] || echo c1 ;;
  "compose ps -a -q") [ -n "\${FAKE_NO_CONTAINERS:-}" ] || echo c1 ;;
  "compose ps --services --status running") [ -e "\${FAKE_STOPPED:-/nonexistent}" ] || [ -n "\${FAKE_NO_CONTAINERS:-}" ] || printf 'openclaw\nredis\n' ;;
  "pull "*)
    if [ -n "\${FAKE_NO_HELPER:-}" ]; then
      echo 'Error response from daemon: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host' >&2
      exit 1
    fi ;;
  "run --rm --label stackwright.helper="*" -v "*" du -sk /data") echo "\${FAKE_VOLUME_KB:-4}	/data" ;;
  # one service's running container: the proxy runs when FAKE_PROXY_RUNNING says so
  "compose ps -q "*) [ -n "\${FAKE_PROXY_RUNNING:-}" ] && echo c1 ;;
  "run --rm -i "*) cat >/dev/null; printf 'stackwright:$2y$10$0123456789abcdefghijkuVWXYZ0123456789abcdefghijklmnopq\n\n' ;; # htpasswd -n ends its record with an empty line
  "ps --filter publish="*)
    if [ -n "\${FAKE_PORT_HOLDER:-}" ] && [[ "$*" == *"publish=\${FAKE_PORT_HOLDER%%=*} "* ]]; then
      [[ "$*" == *Names* ]] && echo "\${FAKE_PORT_HOLDER#*=} otherproject" || echo otherproject
    fi ;;
  inspect*Labels*) echo "redis example/redis:2 sha256:0ld" ;;
  "compose pull"*)
    if [ -n "\${FAKE_PULL_FAIL:-}" ]; then
      [ "$*" = "compose pull --quiet openclaw" ] && exit 0
      echo "Error response from daemon: manifest for \${FAKE_PULL_FAIL} not found: manifest unknown" >&2
      exit 18
    fi ;;
  "compose config --services") printf 'openclaw\nredis\n' ;;
  # no image is on this engine yet, but the one FAKE_PRESENT names
  "image inspect "*) [ -n "\${FAKE_PRESENT:-}" ] && [ "$3" = "\${FAKE_PRESENT}" ] || exit 1 ;;
  # the resolved compose file as Compose prints it: services at two spaces, their keys at four
  "compose config") printf 'name: x\nservices:\n  openclaw:\n    image: ghcr.io/openclaw/openclaw:2026.5.7\n  redis:\n    image: %s\nnetworks:\n  stack:\n    name: x\n' "\${FAKE_PULL_FAIL:-redis:7}" ;;
  # the helper's archive of a volume: a real tar.gz of an empty folder (./ alone) where the backup folder is mounted
  "run --rm --label stackwright.helper="*" -v "*"tar czf /backup/"*)
    for a in "$@"; do case $a in *:/backup) dest=\${a%:/backup} ;; /backup/*) file=\${a#/backup/} ;; esac; done
    if [ -n "\${FAKE_TAR_FAIL:-}" ]; then head -c 100 /dev/zero > "$dest/$file"; echo "tar: /backup/$file: Cannot write: No space left on device" >&2; exit 2; fi
    empty=$(mktemp -d); tar czf "$dest/$file" -C "$empty" .; rmdir "$empty" ;;
  inspect*Health*)
    if [ -n "\${FAKE_UNHEALTHY_UNTIL_TAG:-}" ] && ! grep -q '^tag ' ${JSON.stringify(log)}; then echo unhealthy:0; else echo healthy:0; fi ;;
  inspect*) echo /c1 ;;
esac
exit 0
`, { mode: 0o755 });
  }
  // the stand-in ss before hideDocker links the machine's programs in: written after, through the link to
  // /usr/bin/ss, it replaced the machine's own ss (found when a later engine test's port check saw no listener)
  // FAKE_SS_SLOW=<file>: ss makes the file and hangs (a port check under way, to interrupt)
  fs.writeFileSync(path.join(bin, 'ss'), '#!/usr/bin/env bash\n[ -z "${FAKE_SS_SLOW:-}" ] || { : > "$FAKE_SS_SLOW"; sleep 30; }\n[ -n "${FAKE_SS:-}" ] && printf \'%s\\n\' "$FAKE_SS"\nexit 0\n', { mode: 0o755, flag: 'wx' });
  if (opts.noDocker) hideDocker(bin);
  // a PATH with the usual tools but no real docker (hideDocker shadows it where the machine has one)
  const PATH = opts.noDocker ? bin : `${bin}:/usr/bin:/bin`;
  const run = (script: string, ...args: string[]) => runWith({}, script, ...args);
  const runWith = (env: Record<string, string>, script: string, ...args: string[]) =>
    spawnSync('bash', [path.join(dir, script), ...args], { cwd: root, env: { PATH, HOME: root, ...env }, encoding: 'utf8', timeout: 60_000 });
  // in a process group of its own, as from a terminal: a Ctrl-C is a SIGINT to the whole group
  const runAsync = (env: Record<string, string>, script: string) => {
    const child = spawn('bash', [path.join(dir, script)], { cwd: root, env: { PATH, HOME: root, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.stdout.resume();
    const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
    return { pid: child.pid!, done };
  };
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);
  return { root, dir, run, runWith, runAsync, calls };
}

/** Links every program of /usr/bin and /bin but docker (and alsoHide) into bin, for a PATH on which docker is missing. */
function hideDocker(bin: string, alsoHide: string[] = []): void {
  for (const dir of ['/usr/bin', '/bin']) {
    for (const name of fs.readdirSync(dir)) {
      if (name === 'docker' || alsoHide.includes(name) || fs.existsSync(path.join(bin, name))) continue;
      fs.symlinkSync(path.join(dir, name), path.join(bin, name));
    }
  }
}

/** A started stack (key set, .env made), ready for update and port tests. */
function started(request: Parameters<Generator['generate']>[0]) {
  const ctx = setup(request);
  ctx.run('scripts/start.sh');
  fs.appendFileSync(path.join(ctx.dir, '.env'), 'OPENAI_API_KEY=sk-test\n');
  return ctx;
}

describe('scripts/start.sh', () => {
  test('creates .env with every secret filled, stops until a provider key is set, then starts and prints the addresses', () => {
    const { dir, run, calls } = setup({ name: 'starter', preset: 'automation-hub', proxy: 'caddy' });
    const first = run('scripts/start.sh');
    assert.equal(first.status, 1, first.stdout);
    assert.match(first.stderr, /OpenClaw needs a model provider key: set one of .*OPENAI_API_KEY/);
    assert.ok(!calls().includes('compose up -d --remove-orphans'), 'nothing starts without a key');
    fs.appendFileSync(path.join(dir, '.env'), 'OPENAI_API_KEY=sk-test\n');
    const res = run('scripts/start.sh');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    assert.match(res.stdout, /The stack is up/);
    assert.match(res.stdout, /n8n, .*: http:\/\/localhost:5678\//);
    assert.ok(calls().includes('compose up -d --remove-orphans'), calls().join('\n'));
    const env = envExampleKeys(fs.readFileSync(path.join(dir, '.env'), 'utf8'));
    assert.equal((fs.statSync(path.join(dir, '.env')).mode & 0o777), 0o600);
    assert.match(env.get('POSTGRESQL_POSTGRES_PASSWORD')!, /^[A-Za-z0-9]{32}$/);
    assert.match(env.get('OPENCLAW_OPENCLAW_GATEWAY_TOKEN')!, /^[a-f0-9]{64}$/);
    assert.equal(env.get('POSTGRESQL_POSTGRES_USER'), 'stack');
  });

  test('hashes the proxy password into the proxy config before start; restarts the proxy only when it ran with the old one', () => {
    const { dir, run, runWith, calls } = setup({ name: 'guarded', preset: 'automation-hub', proxy: 'caddy', domain: 'example.com' });
    run('scripts/start.sh');
    const envFile = path.join(dir, '.env');
    fs.appendFileSync(envFile, 'OPENAI_API_KEY=sk-test\n');
    const res = run('scripts/start.sh');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const auth = fs.readFileSync(path.join(dir, 'caddy/basic-auth.caddy'), 'utf8');
    assert.match(auth, /^basicauth \{\n\tadmin \$2y\$10\$0123456789abcdefghijk[A-Za-z0-9]+\n\}$/m);
    const log = calls();
    const hash = log.findIndex((l) => /^run --rm -i httpd:[0-9.]+-alpine htpasswd -niBC 10 stackwright$/.test(l));
    assert.ok(hash >= 0 && hash < log.indexOf('compose up -d --remove-orphans'), log.join('\n'));
    // the proxy `up` starts reads the new file: a restart would only cut short its first certificate requests
    assert.ok(!log.includes('compose restart caddy'), log.join('\n'));

    let before = calls().length;
    assert.equal(runWith({ FAKE_PROXY_RUNNING: '1' }, 'scripts/start.sh').status, 0);
    assert.ok(!calls().slice(before).some((l) => l.startsWith('run --rm -i') || l === 'compose restart caddy'), 'unchanged .env: no new hash, no restart');

    // a new password while the proxy runs: hashed, and the running proxy restarted after up to read it
    fs.appendFileSync(envFile, 'STACK_PROXY_PASSWORD=changed-password\n');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(envFile, later, later);
    before = calls().length;
    const changed = runWith({ FAKE_PROXY_RUNNING: '1' }, 'scripts/start.sh');
    assert.equal(changed.status, 0, changed.stderr + changed.stdout);
    const after = calls().slice(before);
    assert.ok(after.some((l) => l.startsWith('run --rm -i')), after.join('\n'));
    assert.ok(after.indexOf('compose restart caddy') > after.indexOf('compose up -d --remove-orphans'), after.join('\n'));
  });

  test('a new proxy password reaches the running proxy even when the run that hashed it stopped before restarting it', () => {
    const { dir, run, runWith, calls } = setup({ name: 'pending', preset: 'automation-hub', proxy: 'caddy', domain: 'example.com' });
    run('scripts/start.sh');
    const envFile = path.join(dir, '.env');
    const authFile = path.join(dir, 'caddy/basic-auth.caddy');
    fs.appendFileSync(envFile, 'OPENAI_API_KEY=sk-test\n');
    assert.equal(runWith({ FAKE_PROXY_RUNNING: '1' }, 'scripts/start.sh').status, 0);
    // the user sets a new password; the login file the running proxy read is older than that edit
    fs.appendFileSync(envFile, 'STACK_PROXY_PASSWORD=changed-password\n');
    const earlier = new Date(Date.now() - 10_000);
    fs.utimesSync(authFile, earlier, earlier);
    // this run hashes it, then `up` fails (a port taken meanwhile): the proxy still runs with the old password
    let before = calls().length;
    const failed = runWith({ FAKE_PROXY_RUNNING: '1', FAKE_UP_FAIL: '1' }, 'scripts/start.sh');
    assert.notEqual(failed.status, 0);
    // (the stand-in hasher gives one hash for any password: the file's time says it was written)
    assert.ok(calls().slice(before).some((l) => l.startsWith('run --rm -i')) && fs.statSync(authFile).mtimeMs > earlier.getTime() + 5000, 'the new password was not hashed into the file');
    assert.ok(!calls().slice(before).includes('compose restart caddy'), calls().slice(before).join('\n'));
    // the next run finds the file newer than .env, so it hashes nothing: it must still restart the proxy that runs
    before = calls().length;
    const next = runWith({ FAKE_PROXY_RUNNING: '1' }, 'scripts/start.sh');
    assert.equal(next.status, 0, next.stderr + next.stdout);
    let after = calls().slice(before);
    assert.ok(!after.some((l) => l.startsWith('run --rm -i')), 'hashed again: ' + after.join('\n'));
    assert.ok(after.indexOf('compose restart caddy') > after.indexOf('compose up -d --remove-orphans'), 'the running proxy was not restarted: ' + after.join('\n'));
    // once it has, a run restarts nothing
    before = calls().length;
    assert.equal(runWith({ FAKE_PROXY_RUNNING: '1' }, 'scripts/start.sh').status, 0);
    after = calls().slice(before);
    assert.ok(!after.includes('compose restart caddy'), after.join('\n'));
  });

  test('a first .env cut short (a full disk) is not left for the next run; the next run makes it whole and private', () => {
    const { dir, run, runWith } = setup({ name: 'fullenv', services: ['redis'] });
    // a cp that writes the first 100 bytes and fails as on a full disk, when FAKE_CP_FULL says so
    fs.writeFileSync(path.join(path.dirname(dir), 'bin', 'cp'), '#!/usr/bin/env bash\nif [ -n "${FAKE_CP_FULL:-}" ]; then head -c 100 "${@: -2:1}" > "${@: -1}"; echo "cp: error writing \'${@: -1}\': No space left on device" >&2; exit 1; fi\nexec /bin/cp "$@"\n', { mode: 0o755 });
    const full = runWith({ FAKE_CP_FULL: '1' }, 'scripts/start.sh');
    assert.notEqual(full.status, 0);
    assert.ok(!fs.existsSync(path.join(dir, '.env')), 'a partial .env was left');
    assert.ok(!fs.existsSync(path.join(dir, '.env.tmp')), 'a partial copy was left');
    assert.match(full.stderr, /could not create \.env from \.env\.example \(is the disk full\?\): nothing was started/);
    // the disk has room again: .env has every line of .env.example (its secrets filled), readable by its owner only
    run('scripts/start.sh');
    const keys = (text: string) => text.split('\n').filter((l) => /^[A-Z0-9_]+=/.test(l)).map((l) => l.split('=')[0]);
    assert.deepEqual(keys(fs.readFileSync(path.join(dir, '.env'), 'utf8')), keys(fs.readFileSync(path.join(dir, '.env.example'), 'utf8')));
    assert.equal(fs.statSync(path.join(dir, '.env')).mode & 0o777, 0o600);
  });

  test('a Ctrl-C during the port check says that was the step and starts nothing, exit 130; a re-run starts the stack', async () => {
    const { root, run, runAsync, calls } = started({ name: 'portcheck', preset: 'automation-hub' });
    const checking = path.join(root, 'checking-ports');
    const start = runAsync({ FAKE_SS_SLOW: checking }, 'scripts/start.sh');
    for (let i = 0; i < 300 && !fs.existsSync(checking); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.existsSync(checking), 'the port check never ran');
    process.kill(-start.pid, 'SIGINT');
    const result = await start.done;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /scripts\/start\.sh stopped, interrupted by SIGINT while checking that the host ports are free: .*run scripts\/start\.sh again to finish/);
    assert.ok(!calls().includes('compose up -d --remove-orphans'), calls().join('\n'));
    const again = run('scripts/start.sh');
    assert.equal(again.status, 0, again.stderr);
    assert.ok(calls().includes('compose up -d --remove-orphans'), calls().join('\n'));
  });

  test('install.sh (bare metal): a Ctrl-C during a native install says which, after the native script, exit 130, starts no container; a re-run installs and starts', async () => {
    const { root, dir, run, runAsync, calls } = setup({ name: 'metal', services: ['n8n'], deploymentType: 'bare-metal' });
    const bin = path.join(root, 'bin');
    // root, as install.sh asks (the tests need not run as root)
    fs.writeFileSync(path.join(bin, 'id'), '#!/usr/bin/env bash\n[ "${1:-}" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n', { mode: 0o755 });
    // the user's .env with the native parts' address set (the stand-in docker knows no bridge network) and a key
    const example = fs.readFileSync(path.join(dir, '.env.example'), 'utf8');
    fs.writeFileSync(path.join(dir, '.env'), `${example.replace(/^STACK_NATIVE_BIND=.*$/m, 'STACK_NATIVE_BIND=127.0.0.1')}OPENAI_API_KEY=sk-test\n`, { mode: 0o600 });
    // a native install under way (the real one downloads and installs OpenClaw on this machine): it says so and hangs
    const native = path.join(dir, 'native/openclaw.sh');
    assert.ok(fs.existsSync(native));
    const installing = path.join(root, 'installing');
    fs.writeFileSync(native, `#!/usr/bin/env bash\n: > ${JSON.stringify(installing)}\nsleep 30\n`);
    const install = runAsync({}, 'install.sh');
    for (let i = 0; i < 300 && !fs.existsSync(installing); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.existsSync(installing), 'the native install never started');
    process.kill(-install.pid, 'SIGINT');
    const result = await install.done;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /\.\/install\.sh stopped, interrupted by SIGINT while installing OpenClaw natively \(native\/openclaw\.sh\): .*run \.\/install\.sh again to finish/);
    assert.ok(!calls().includes('compose up -d --remove-orphans'), calls().join('\n'));
    // the native install works now: a re-run goes on to the containers
    fs.writeFileSync(native, '#!/usr/bin/env bash\nexit 0\n');
    const again = run('install.sh');
    assert.equal(again.status, 0, again.stderr + again.stdout);
    assert.ok(calls().includes('compose up -d --remove-orphans'), calls().join('\n'));
  });

  test('a second run keeps .env as it is, secrets and user edits alike', () => {
    const { dir, run } = setup({ name: 'rerun', services: ['redis'] });
    assert.equal(run('scripts/start.sh').status, 1, 'the first run stops for the provider key');
    const envFile = path.join(dir, '.env');
    fs.appendFileSync(envFile, 'OPENAI_API_KEY=sk-user\n');
    assert.equal(run('scripts/start.sh').status, 0);
    const before = fs.readFileSync(envFile, 'utf8');
    const res = run('scripts/start.sh');
    assert.equal(res.status, 0, res.stderr);
    assert.equal(fs.readFileSync(envFile, 'utf8'), before);
    assert.doesNotMatch(res.stdout, /generated/);
  });

  test('two stacks never share a secret', () => {
    const a = setup({ name: 'one', services: ['redis'] });
    const b = setup({ name: 'two', services: ['redis'] });
    a.run('scripts/start.sh');
    b.run('scripts/start.sh');
    const secret = (dir: string) => envExampleKeys(fs.readFileSync(path.join(dir, '.env'), 'utf8')).get('REDIS_REDIS_PASSWORD');
    assert.notEqual(secret(a.dir), secret(b.dir));
  });

  test('without Docker it stops with a message saying what to install', () => {
    const { run } = setup({ name: 'nodocker' }, { noDocker: true });
    const res = run('scripts/start.sh');
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /Docker is not installed/);
  });
});

describe('scripts/backup.sh', () => {
  test('stops the stack, archives every named volume, starts it again', () => {
    const { run, calls } = setup({ name: 'saver', services: ['redis', 'qdrant'] });
    const res = run('scripts/backup.sh');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const log = calls();
    assert.equal(log[log.indexOf('compose stop') + 1]?.startsWith('volume inspect saver_'), true, log.join('\n'));
    for (const volume of ['redis-data', 'qdrant-storage']) {
      assert.ok(log.some((l) => l.startsWith(`run --rm --label stackwright.helper=saver -v saver_${volume}:/data:ro`) && l.includes(`tar czf /backup/${volume}.tar.gz`)), `${volume}:\n${log.join('\n')}`);
    }
    const start = log.indexOf('compose up -d --no-recreate openclaw redis');
    assert.ok(start > log.findIndex((l) => l.includes('tar czf')), `what ran is started again after the archives:\n${log.join('\n')}`);
    assert.ok(log.findIndex((l) => l.includes('du -sk /data')) < log.indexOf('compose stop'), 'the volumes are measured before anything stops');
    assert.ok(log.slice(start).some((l) => l.includes('.State.Health')), 'and waited for the health checks');
    assert.match(res.stdout, /restore: scripts\/backup\.sh restore/);
  });

  test('a helper image that is missing and cannot be pulled stops the backup before anything is stopped', () => {
    const { dir, runWith, calls } = setup({ name: 'nohelper', services: ['redis'] });
    const res = runWith({ FAKE_NO_HELPER: '1' }, 'scripts/backup.sh');
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /the helper image alpine:\S+ is not on this engine and could not be pulled \(.*no such host\); nothing was stopped or changed/);
    assert.ok(!calls().some((l) => /^compose (stop|down|up)/.test(l)), calls().join('\n'));
    assert.ok(!fs.existsSync(path.join(dir, 'backups')) || fs.readdirSync(path.join(dir, 'backups')).length === 0);
  });

  test('too little free space for the volumes stops the backup before anything is stopped', () => {
    const { dir, runWith, calls } = setup({ name: 'nospace', services: ['redis'] });
    const res = runWith({ FAKE_VOLUME_KB: '999999999999' }, 'scripts/backup.sh');
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /not enough free space in .*backups\/\d{8}T\d{6}Z: the volumes hold \d+ KiB, \d+ KiB are free; nothing was stopped or changed/);
    assert.ok(!calls().includes('compose stop'));
    assert.deepEqual(fs.readdirSync(path.join(dir, 'backups')), [], 'no folder is left behind');
  });

  test('an archive that fails once the stack is stopped: the partial backup goes, what ran starts again, the exit is non-zero', () => {
    const { dir, runWith, calls } = setup({ name: 'diskfull', services: ['redis', 'qdrant'] });
    const res = runWith({ FAKE_TAR_FAIL: '1' }, 'scripts/backup.sh');
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /No space left on device/);
    assert.match(res.stderr, /the backup failed; its partial folder .*backups\/\d{8}T\d{6}Z was removed/);
    assert.match(res.stderr, /no backup was written; what ran runs again/);
    const log = calls();
    assert.ok(log.lastIndexOf('compose up -d --no-recreate openclaw redis') > log.indexOf('compose stop'), log.join('\n'));
    assert.ok(log.slice(log.indexOf('compose stop')).some((l) => l.includes('.State.Health')), 'and waits until it is healthy');
    assert.deepEqual(fs.readdirSync(path.join(dir, 'backups')), [], 'no partial backup is left');
  });

  test('--live fails the same way and stops nothing', () => {
    const { dir, runWith, calls } = setup({ name: 'livefull', services: ['qdrant'] });
    const res = runWith({ FAKE_TAR_FAIL: '1' }, 'scripts/backup.sh', '--live');
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /partial folder .* was removed/);
    assert.ok(!calls().some((l) => /^compose (stop|down|up)/.test(l)), calls().join('\n'));
    assert.deepEqual(fs.readdirSync(path.join(dir, 'backups')), []);
  });

  test('a stopped stack is backed up without starting it', () => {
    const { dir, runWith, calls } = setup({ name: 'resting', services: ['redis'] });
    const flag = path.join(dir, 'stopped');
    fs.writeFileSync(flag, '');
    const res = runWith({ FAKE_STOPPED: flag }, 'scripts/backup.sh');
    assert.equal(res.status, 0, res.stderr);
    assert.ok(!calls().some((l) => /^compose (stop|up|start)/.test(l)), calls().join('\n'));
  });

  test('restore needs an existing backup folder', () => {
    const { run } = setup({ name: 'restorer', services: ['redis'] });
    const res = run('scripts/backup.sh', 'restore', 'backups/nope');
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /usage: scripts\/backup\.sh restore/);
  });
});

describe('one lock for the stack scripts', () => {
  /** A script of the stack holding the lock (as a long backup would), with PATH as the scripts get it. */
  async function holder(dir: string, PATH: string, args = ['-c', '. scripts/lib.sh; stack_lock backup.sh; sleep 60; true']) {
    const child = spawn('bash', args, { cwd: dir, env: { PATH, HOME: dir }, stdio: 'ignore' });
    const file = path.join(dir, '.stackwright', 'lock.holder');
    for (let i = 0; i < 100 && !(fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes(String(child.pid))); i++) await new Promise((r) => setTimeout(r, 100));
    return child;
  }

  for (const [withFlock, holderScript] of [[true, 'backup.sh'], [false, 'backup.sh'], [false, 'native']] as const) {
    test(`a second script waits, then names the holder and its pid; a killed holder frees the lock (${withFlock ? 'flock' : 'pid-file fallback'}${holderScript === 'native' ? ', a bare-metal installer holding it' : ''})`, async () => {
      const ctx = started({ name: `locked-${withFlock ? 'flock' : 'noflock'}-${holderScript.replace('.sh', '')}`, services: ['redis'] });
      let PATH = `${path.dirname(ctx.dir)}/bin:/usr/bin:/bin`;
      if (!withFlock) {
        const bin = path.join(path.dirname(ctx.dir), 'bin-noflock');
        fs.mkdirSync(bin);
        fs.copyFileSync(path.join(path.dirname(ctx.dir), 'bin', 'docker'), path.join(bin, 'docker'));
        fs.chmodSync(path.join(bin, 'docker'), 0o755);
        hideDocker(bin, ['flock']);
        PATH = bin;
      }
      // a native installer is run as `bash native/<id>.sh`: no scripts/ in its command line
      if (holderScript === 'native') fs.mkdirSync(path.join(ctx.dir, 'native'), { recursive: true });
      if (holderScript === 'native') fs.writeFileSync(path.join(ctx.dir, 'native', 'hold.sh'), '. scripts/lib.sh; stack_lock native/hold.sh; sleep 60; true\n');
      const child = await holder(ctx.dir, PATH, holderScript === 'native' ? ['native/hold.sh'] : undefined);
      const held = holderScript === 'native' ? 'native/hold\\.sh' : 'scripts/backup\\.sh';
      const before = ctx.calls().length;
      try {
        const waited = spawnSync('bash', [path.join(ctx.dir, 'scripts/update.sh'), '--no-backup'], { cwd: ctx.dir, env: { PATH, HOME: ctx.dir, STACK_LOCK_WAIT: '1' }, encoding: 'utf8', timeout: 60_000 });
        assert.equal(waited.status, 1, waited.stdout);
        assert.match(waited.stderr, new RegExp(`another stack script is running: ${held} \\(pid ${child.pid}\\) holds the lock; waited 1s \\(STACK_LOCK_WAIT\\)`));
        assert.ok(!ctx.calls().slice(before).some((l) => /^compose (up|stop|down|pull)/.test(l)), 'it touched nothing');
      } finally {
        child.kill('SIGKILL');
      }
      await new Promise((r) => child.on('exit', r));
      const after = spawnSync('bash', [path.join(ctx.dir, 'scripts/stop.sh')], { cwd: ctx.dir, env: { PATH, HOME: ctx.dir, STACK_LOCK_WAIT: '5' }, encoding: 'utf8', timeout: 60_000 });
      assert.equal(after.status, 0, after.stderr);
    });
  }

  test('a script run by the holder shares its lock: update.sh runs backup.sh', () => {
    const { run } = started({ name: 'reentry', services: ['redis'] });
    const res = run('scripts/update.sh');
    assert.equal(res.status, 0, res.stderr);
    assert.doesNotMatch(res.stderr, /another stack script/);
  });
});

describe('scripts/start.sh port check', () => {
  test('names a host port another container holds, before docker compose up', () => {
    const { runWith, calls } = started({ name: 'ports', services: ['redis'] });
    const res = runWith({ FAKE_PORT_HOLDER: '6379=someone-elses-redis' }, 'scripts/start.sh');
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /host port 6379\/tcp \(REDIS_PORT_6379 in \.env\) is taken by container someone-elses-redis/);
    assert.ok(!calls().includes('compose up -d --remove-orphans'), 'nothing starts');
  });

  test('names a process holding a port', () => {
    const { runWith } = started({ name: 'procs', services: ['redis'] });
    const res = runWith({ FAKE_SS: 'LISTEN 0 511 0.0.0.0:18789 0.0.0.0:* users:(("node",pid=42,fd=20))' }, 'scripts/start.sh');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /is taken by process node/);
  });
});

describe('scripts/update.sh', () => {
  test('pulls, backs up, records the running images, recreates and waits for health, in that order', () => {
    const { run, calls } = started({ name: 'upd', services: ['redis'] });
    const before = calls().length;
    const res = run('scripts/update.sh');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const log = calls().slice(before);
    const at = (prefix: string) => log.findIndex((l) => l.startsWith(prefix));
    assert.ok(at('compose pull') >= 0 && at('compose stop') > at('compose pull'), `the pull first:\n${log.join('\n')}`);
    assert.ok(log.findIndex((l) => l.includes('tar czf /backup/redis-data')) > at('compose stop'), `then the backup:\n${log.join('\n')}`);
    const recorded = log.findIndex((l, i) => i > at('compose up -d --no-recreate') && l.startsWith('inspect --format {{index .Config.Labels'));
    assert.ok(recorded > at('compose up -d --no-recreate'), 'then the images of the containers are recorded');
    assert.ok(log.indexOf('compose ps -a -q') > at('compose up -d --no-recreate'), 'from every container, running or not');
    assert.ok(log.lastIndexOf('compose up -d --remove-orphans') > recorded, 'then the recreate');
    const lastHealth = log.map((l) => l.includes('.State.Health')).lastIndexOf(true);
    assert.ok(lastHealth > log.lastIndexOf('compose up -d --remove-orphans'), 'then the health wait');
    assert.ok(log.map((l) => l.startsWith('inspect --format {{index .Config.Labels')).lastIndexOf(true) > lastHealth, 'then the images that run are recorded as applied');
    assert.ok(!log.some((l) => l.startsWith('tag ') || l.includes('volume rm') || l.includes('down -v')), 'no rollback, nothing deleted');
    assert.match(res.stdout, /--rollback/);
  });

  test('puts the previous images back when the new ones fail their health checks', () => {
    const { dir, runWith, calls } = started({ name: 'bad', services: ['redis'] });
    // the user (or stackwright upgrade) moved the pin; the running container still has the old image
    fs.appendFileSync(path.join(dir, '.env'), 'REDIS_IMAGE=example/redis:3\n');
    const before = calls().length;
    const res = runWith({ FAKE_UNHEALTHY_UNTIL_TAG: '1', STACK_START_TIMEOUT: '0' }, 'scripts/update.sh', '--no-backup');
    assert.equal(res.status, 1);
    assert.match(res.stderr, /update rolled back to the previous images/);
    const log = calls().slice(before);
    assert.ok(!log.includes('compose stop'), '--no-backup skips the backup');
    const tag = log.indexOf('tag sha256:0ld example/redis:2');
    assert.ok(tag > log.indexOf('compose up -d --remove-orphans'), `the old image is re-tagged after the failed recreate:\n${log.join('\n')}`);
    assert.ok(log.indexOf('compose up -d --remove-orphans --pull never') > tag, 'and recreated without pulling');
    assert.ok(!log.some((l) => l.includes('volume rm') || l.includes('down -v')), 'the data volumes are not touched');
    assert.match(fs.readFileSync(path.join(dir, '.env'), 'utf8'), /^REDIS_IMAGE=example\/redis:2$/m, 'and .env names the image that runs again');
    assert.match(res.stdout, /redis: REDIS_IMAGE in \.env back to example\/redis:2/);
  });

  test('--rollback returns to the recorded images; without a record it says there is nothing to return to', () => {
    const fresh = started({ name: 'norec', services: ['redis'] });
    const none = fresh.run('scripts/update.sh', '--rollback');
    assert.equal(none.status, 1);
    assert.match(none.stderr, /nothing to roll back to/);
    const { dir, run, calls } = started({ name: 'rb', services: ['redis'] });
    assert.equal(run('scripts/update.sh', '--no-backup').status, 0);
    // a one-shot setup container is recorded too (docker compose ps -a); it has no <SERVICE>_IMAGE of its own
    fs.appendFileSync(path.join(dir, '.stackwright/images-before-update'), 'redis-setup example/redis:2 sha256:0ld\n');
    const res = run('scripts/update.sh', '--rollback');
    assert.equal(res.status, 0, res.stderr);
    assert.ok(calls().includes('tag sha256:0ld example/redis:2'));
    assert.match(res.stdout, /redis: REDIS_IMAGE in \.env back to example\/redis:2/);
  });

  test('a stopped stack: the images of its stopped containers are recorded, and a failed update leaves it stopped', () => {
    const { dir, runWith, calls } = started({ name: 'stopped', services: ['redis'] });
    fs.appendFileSync(path.join(dir, '.env'), 'REDIS_IMAGE=example/redis:3\n');
    const flag = path.join(dir, 'stopped');
    fs.writeFileSync(flag, '');
    const before = calls().length;
    const res = runWith({ FAKE_STOPPED: flag, FAKE_UNHEALTHY_UNTIL_TAG: '1', STACK_START_TIMEOUT: '0' }, 'scripts/update.sh', '--no-backup');
    assert.equal(res.status, 1, res.stdout);
    assert.match(fs.readFileSync(path.join(dir, '.stackwright/images-before-update'), 'utf8'), /^redis example\/redis:2 sha256:0ld$/m);
    assert.match(res.stderr, /update rolled back to the previous images/);
    const log = calls().slice(before);
    const tag = log.indexOf('tag sha256:0ld example/redis:2');
    assert.ok(tag >= 0, log.join('\n'));
    assert.ok(log.slice(tag).includes('compose stop openclaw') && log.slice(tag).includes('compose stop redis'), `what did not run before does not run after:\n${log.join('\n')}`);
  });

  test('with no container after scripts/stop.sh, the images of the last start are recorded, and a failed update returns to them, stopped', () => {
    const { dir, run, runWith, calls } = started({ name: 'downed', services: ['redis'] });
    assert.equal(run('scripts/start.sh').status, 0);
    assert.match(fs.readFileSync(path.join(dir, '.stackwright/images-applied'), 'utf8'), /^redis example\/redis:2 sha256:0ld$/m, 'start.sh records what it brought up');
    fs.appendFileSync(path.join(dir, '.env'), 'REDIS_IMAGE=example/redis:3\n');
    const before = calls().length;
    const res = runWith({ FAKE_NO_CONTAINERS: '1', FAKE_UNHEALTHY_UNTIL_TAG: '1', STACK_START_TIMEOUT: '0' }, 'scripts/update.sh', '--no-backup');
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stdout, /recorded the images of its last start/);
    assert.match(res.stderr, /update rolled back to the previous images/);
    const log = calls().slice(before);
    assert.ok(log.includes('tag sha256:0ld example/redis:2'), log.join('\n'));
    assert.match(fs.readFileSync(path.join(dir, '.env'), 'utf8'), /^REDIS_IMAGE=example\/redis:2$/m, '.env names the image of the last start again');
  });

  test('with no container at all and no start recorded, nothing is recorded, and the update does not say it was', () => {
    const { dir, runWith } = started({ name: 'nocontainers', services: ['redis'] });
    fs.rmSync(path.join(dir, '.stackwright/images-applied'), { force: true });
    const res = runWith({ FAKE_NO_CONTAINERS: '1' }, 'scripts/update.sh', '--no-backup');
    assert.equal(res.status, 0, res.stderr);
    assert.doesNotMatch(res.stdout, /previous images are recorded/);
    assert.match(res.stdout, /nothing was recorded to roll back to/);
    const rollback = runWith({ FAKE_NO_CONTAINERS: '1' }, 'scripts/update.sh', '--rollback');
    assert.equal(rollback.status, 1);
    assert.match(rollback.stderr, /nothing to roll back to/);
  });

  test('an image already on the engine is not pulled again (pinned tags; works offline)', () => {
    const { runWith, calls } = started({ name: 'present', services: ['redis'] });
    const before = calls().length;
    const res = runWith({ FAKE_PRESENT: 'redis:7' }, 'scripts/update.sh', '--no-backup');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const log = calls().slice(before);
    assert.ok(log.includes('compose pull --quiet openclaw'), 'the missing image is pulled');
    assert.ok(!log.includes('compose pull --quiet redis'), 'the one already here is not');
  });

  test('a pull that fails names the image and changes nothing', () => {
    const { dir, runWith, calls } = started({ name: 'offline', services: ['redis'] });
    const envBefore = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    const before = calls().length;
    const res = runWith({ FAKE_PULL_FAIL: 'redis:7.9.9-nope' }, 'scripts/update.sh');
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /could not pull:\n {2}redis: redis:7\.9\.9-nope \(Error response from daemon: manifest for redis:7\.9\.9-nope not found: manifest unknown\)/);
    assert.match(res.stderr, /nothing was changed: the stack still runs the images it ran/);
    assert.doesNotMatch(res.stderr, /openclaw:/, 'only the image that failed is named');
    const log = calls().slice(before);
    assert.deepEqual(log.filter((l) => /^compose (stop|up|down|start)|^run |^tag /.test(l)), [], `nothing stopped, backed up or recreated:\n${log.join('\n')}`);
    assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), envBefore);
  });
});

describe('keys: what start.sh enforces is what the README says (issue 20)', () => {
  const catalogue = shippedCatalogue();
  for (const fw of catalogue.frameworks.values()) {
    for (const [preset, deploymentType] of [['web-agent', 'docker'], ['offline-assistant', 'docker'], ['offline-assistant', 'bare-metal']] as const) {
      test(`${fw.id} with ${preset} (${deploymentType})`, () => {
        const { dir, run } = setup({ name: `keys-${fw.id}-${preset}`.slice(0, 40), preset, primaryFramework: fw.id, proxy: 'caddy', deploymentType });
        const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
        const res = run('scripts/start.sh');
        const { keys, localModels, localModelsNote, withoutKey } = fw.manifest.firstRun;
        const modelServer = preset === 'offline-assistant';
        const wired = modelServer && (localModels ?? []).includes('ollama');
        const keyLine = readme.split('\n').find((l) => l.startsWith('- ') && keys.every((k) => l.includes(`\`${k}\``)) && /\((required|optional)/.test(l));
        if (!keys.length) {
          assert.equal(res.status, 0, res.stderr);
          assert.ok(withoutKey, `${fw.id} takes no key: firstRun.withoutKey says what the user does instead`);
          if (wired) {
            assert.ok(readme.includes(`- no model provider key for ${fw.manifest.name}: it answers with the stack's Ollama and the model in \`OLLAMA_MODEL\`; for a cloud provider, ${withoutKey}`), 'the README says it');
            assert.ok(res.stderr.includes(`note: ${fw.manifest.name} answers with the stack's Ollama and the model in OLLAMA_MODEL from .env (`), res.stderr);
            assert.ok(res.stderr.includes(`for a cloud provider: ${withoutKey}`), res.stderr);
          } else {
            assert.ok(readme.includes(`- no model provider key for ${fw.manifest.name}: ${withoutKey}`), 'the README says it');
            assert.ok(res.stderr.includes(`note: ${withoutKey}`), res.stderr);
          }
          return;
        }
        assert.ok(keyLine, `the README's key section names ${keys.join(', ')}:\n${readme.slice(0, 1500)}`);
        if (wired || withoutKey) {
          assert.equal(res.status, 0, `${res.stderr}${res.stdout}`);
          assert.match(keyLine, /\(optional: with none, /);
          assert.match(res.stderr, wired ? /note: no cloud key for .* answers with the stack's Ollama/ : /note: no model provider key for /);
        } else {
          assert.equal(res.status, 1, 'start.sh stops without a key');
          assert.match(keyLine, /\(required: .* needs a model provider key, and `scripts\/start.sh` stops without one\)/);
          assert.match(res.stderr, new RegExp(`${fw.manifest.name} needs a model provider key`));
        }
        if (modelServer && !wired) {
          assert.ok(readme.includes(localModelsNote), 'the README says what holds for the stack\'s Ollama');
          if (res.status === 1) assert.ok(res.stderr.includes(localModelsNote.slice(0, 60)), res.stderr);
        }
        if (wired) {
          // the README names every model the framework uses on Ollama and the command that pulls each
          const vars = fw.manifest.firstRun.localModelVariables ?? ['OLLAMA_MODEL'];
          const pull = deploymentType === 'docker' ? 'docker compose exec ollama ollama pull' : 'OLLAMA_HOST=<STACK_NATIVE_BIND from .env>:11434 ollama pull';
          const pulls = vars.map((v) => `\`${pull} ${fw.manifest.environment!.find((e) => e.name === v)!.default}\``);
          const line = readme.split('\n').find((l) => l.startsWith(`**${fw.manifest.name}**`))!;
          assert.ok(line.includes(`or without a cloud key with the stack's Ollama and the model${vars.length > 1 ? 's' : ''} in ${vars.map((v) => `\`${v}\``).join(' and ')} (pull ${vars.length > 1 ? 'them' : 'it'} once: ${pulls.join(' and ')}`), line);
          assert.ok(res.stderr.includes(`and the model${vars.length > 1 ? 's' : ''} in ${vars.join(' and ')} from .env`), res.stderr);
        }
      });
    }
  }
});

describe('every framework with every other model server and no cloud key (issue 35)', () => {
  const catalogue = shippedCatalogue();
  for (const fw of catalogue.frameworks.values()) {
    for (const server of ['llama-cpp', 'vllm', 'sglang', 'local-ai', 'xinference']) {
      test(`${fw.id} with ${server}`, () => {
        const { dir, run } = setup({ name: `ms-${fw.id}-${server}`.slice(0, 40), primaryFramework: fw.id, services: [server], deploymentType: 'docker' });
        const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
        const compose = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
        const res = run('scripts/start.sh');
        const { keys, localModels, localModelsNote, withoutKey } = fw.manifest.firstRun;
        const spec = catalogue.services.get(server)!.manifest.modelServer!;
        const prefix = server.toUpperCase().replace(/-/g, '_');
        const name = catalogue.services.get(server)!.manifest.name;
        const line = readme.split('\n').find((l) => l.startsWith(`**${fw.manifest.name}**`))!;
        if ((localModels ?? []).includes(server)) {
          // wired: start.sh starts and says which server and model answer, the README the same with the first-run step
          assert.equal(res.status, 0, `${res.stderr}${res.stdout}`);
          assert.ok(res.stderr.includes(`the stack's ${name} and the model`) && res.stderr.includes(spec.model) && res.stderr.includes(' from .env'), res.stderr);
          assert.ok(line.includes(`with the stack's ${name} and the model`) && line.includes(`\`${spec.model}\``) && line.includes(spec.load), line);
          // the framework container gets the model from .env and, where the server has one, its key
          assert.match(compose, new RegExp(`${prefix}_MODEL: \\$\\{${spec.model}\\}`));
          if (spec.apiKey) assert.match(compose, new RegExp(`${prefix}_API_KEY: \\$\\{${prefix}_${spec.apiKey}\\}`));
        } else {
          // not wired: the README and start.sh say why, with the upstream evidence
          assert.ok(readme.includes(localModelsNote), `the README says why ${fw.id} cannot use ${server}`);
          if (keys.length && !withoutKey) {
            assert.equal(res.status, 1, 'start.sh stops without a key');
            assert.ok(res.stderr.includes(localModelsNote.slice(0, 60)), res.stderr);
          }
        }
      });
    }
  }
});
