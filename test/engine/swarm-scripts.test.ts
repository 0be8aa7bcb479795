// The Swarm bundle's scripts run for real, against a stand-in `docker` on PATH that records its calls (and the
// environment `docker stack deploy` got): .env creation, the data label, the values passed to the stack
// file, re-runs, required keys, an engine that is no Swarm manager, an update that fails and rolls back,
// backup.sh's pruning (STACK_BACKUP_KEEP), rollback.sh, remove.sh and status.sh. The real engine runs them in
// test/real-engine/swarm.engine-test.ts.
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
 * FAKE_NOT_MANAGER: the engine is no Swarm manager. FAKE_DEPLOYED: `stack ls` lists the stack. FAKE_UPDATE_FAILS:
 * once `stack deploy` ran with a *_IMAGE ending in :broken, the services report a paused update (Swarm's
 * failure_action seen from outside) until a `service rollback`. FAKE_TASK_ERROR: status finds a failing task.
 * FAKE_DEPLOY_FAILS: `stack deploy` fails as it does when the manager cannot be reached.
 */
function setup(request: Parameters<Generator['generate']>[0]) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-swarm-scripts-'));
  const dir = path.join(root, request.name);
  writeBundle(dir, generator.generate({ ...request, deploymentType: 'swarm' }).files);
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  const log = path.join(root, 'docker.log');
  const deployed = path.join(root, 'deploy-env');
  fs.writeFileSync(path.join(bin, 'docker'), `#!/usr/bin/env bash
echo "$*" >> ${JSON.stringify(log)}
case "$*" in
  "info --format {{.Swarm.ControlAvailable}}") [ -n "\${FAKE_NOT_MANAGER:-}" ] && echo false || echo true ;;
  "info --format {{.Swarm.NodeID}}") echo n1 ;;
  "node ls -q --filter node.label="*) grep -q '^node update' ${JSON.stringify(log)} && echo n1 ;;
  "stack deploy "*)
    # FAKE_DEPLOY_SLOW=<file>: the deploy is under way (the file made) and takes a while
    if [ -n "\${FAKE_DEPLOY_SLOW:-}" ]; then : > "$FAKE_DEPLOY_SLOW"; sleep 30; fi
    [ -z "\${FAKE_DEPLOY_FAILS:-}" ] || { echo "failed to update service $3_openclaw: Error response from daemon: rpc error: code = Unavailable" >&2; exit 1; }
    env | grep -E '^[A-Z0-9_]+=' | sort > ${JSON.stringify(deployed)}
    if [ -n "\${FAKE_UPDATE_FAILS:-}" ] && env | grep -qE '_IMAGE=.*:broken$'; then touch ${JSON.stringify(`${root}/broken`)}; fi ;;
  "stack ls "*) [ -n "\${FAKE_DEPLOYED:-}" ] && echo "$STACK_NAME_FOR_FAKE" ;;
  # the names alone (backup.sh's list of the stack's services), or as the Docker CLI prints them: a job's mode is "replicated job"
  "stack services "*" --format {{.Name}}") printf '%s_postgresql\n%s_openclaw\n%s_postgresql-setup\n' "$3" "$3" "$3" ;;
  "stack services "*) printf '%s_openclaw\\treplicated\\t1/1\\n%s_postgresql\\treplicated\\t1/1 (max 1 per node)\\n%s_postgresql-setup\\treplicated job\\t0/1 (1/1 completed)\\n' "$3" "$3" "$3" ;;
  # the setup job's current run (JobIteration 7) and its one task, completed
  "service inspect --format {{if .JobStatus}}"*) echo 7 ;;
  "service ps -q "*) echo t1 ;;
  "inspect --format {{if .JobIteration}}"*) echo "7 complete" ;;
  "service inspect --format "*)
    if [ -e ${JSON.stringify(`${root}/broken`)} ] && [[ "$*" == *_openclaw ]]; then echo "paused $(date +%s)"; fi ;;
  # a service exists once a stack deploy ran
  "service inspect "*) grep -q '^stack deploy' ${JSON.stringify(log)} || exit 1 ;;
  "service rollback "*) rm -f ${JSON.stringify(`${root}/broken`)} ;;
  "stack ps "*) [ -n "\${FAKE_TASK_ERROR:-}" ] && printf 'x_openclaw.1\\tn1\\tRejected 3 seconds ago\\tNo such image: openclaw:broken\\n' ;;
  # Swarm secrets: one file each under secrets/, made by create (FAKE_SECRET_FAILS: create fails)
  "secret inspect "*) [ -e ${JSON.stringify(`${root}/secrets`)}/"$3" ]; exit $? ;;
  "secret create "*)
    [ -z "\${FAKE_SECRET_FAILS:-}" ] || { echo "Error response from daemon: rpc error" >&2; exit 1; }
    mkdir -p ${JSON.stringify(`${root}/secrets`)}; cat > ${JSON.stringify(`${root}/secrets`)}/"\${@: -2:1}" ;;
  # FAKE_NO_VOLUMES: a node that holds none of the stack's volumes
  "volume inspect "*) [ -z "\${FAKE_NO_VOLUMES:-}" ] || exit 1 ;;
  "run --rm -i "*) cat >/dev/null; printf 'stackwright:$2y$10$0123456789abcdefghijkuVWXYZ0123456789abcdefghijklmnopq\\n\\n' ;;
esac
exit 0
`, { mode: 0o755 });
  const env = (extra: Record<string, string>) => ({ PATH: `${bin}:/usr/bin:/bin`, HOME: root, STACK_START_TIMEOUT: '5', STACK_NAME_FOR_FAKE: request.name, ...extra });
  const run = (script: string, args: string[] = [], extra: Record<string, string> = {}) =>
    spawnSync('bash', [path.join(dir, script), ...args], { cwd: root, env: env(extra), encoding: 'utf8', timeout: 60_000 });
  // in a process group of its own, as from a terminal: a Ctrl-C is a SIGINT to the whole group
  const runAsync = (script: string, extra: Record<string, string> = {}) => {
    const child = spawn('bash', [path.join(dir, script)], { cwd: root, env: env(extra), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    child.stdout.resume();
    const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
    return { pid: child.pid!, done };
  };
  const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []);
  const deployEnv = () => envExampleKeys(fs.readFileSync(deployed, 'utf8'));
  const secrets = () => new Map((fs.existsSync(path.join(root, 'secrets')) ? fs.readdirSync(path.join(root, 'secrets')) : []).map((n) => [n, fs.readFileSync(path.join(root, 'secrets', n), 'utf8')]));
  return { root, dir, run, runAsync, calls, deployEnv, secrets };
}

const REQUEST = { name: 'swarmy', preset: 'automation-hub', proxy: 'caddy', domain: 'example.com' } as const;

describe('the Swarm scripts', () => {
  test('deploy.sh: .env with every secret, the proxy login, the data label once, .env passed to docker stack deploy, safe to run again', () => {
    const { dir, run, calls, deployEnv } = setup(REQUEST);
    const first = run('scripts/deploy.sh');
    assert.equal(first.status, 0, first.stderr + first.stdout);
    assert.match(first.stdout, /labelled this node stackwright\.swarmy=true/);
    assert.match(first.stdout, /the stack "swarmy" is up/);
    const env = envExampleKeys(fs.readFileSync(path.join(dir, '.env'), 'utf8'));
    assert.equal(fs.statSync(path.join(dir, '.env')).mode & 0o777, 0o600);
    assert.match(env.get('POSTGRESQL_POSTGRES_PASSWORD')!, /^[A-Za-z0-9]{32}$/);
    // docker stack deploy got every value of .env, secrets included, and the stack file with the stack's name
    for (const [key, value] of env) assert.equal(deployEnv().get(key) ?? '', value, key);
    assert.ok(calls().includes('stack deploy --prune --detach=true --resolve-image always -c stack.yml swarmy'), calls().join('\n'));
    assert.match(fs.readFileSync(path.join(dir, 'caddy/basic-auth.caddy'), 'utf8'), /admin \$2y\$10\$/);
    const before = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    const again = run('scripts/deploy.sh', [], { STACK_RESOLVE_IMAGE: 'never' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), before, '.env is kept');
    assert.equal(calls().filter((c) => c.startsWith('node update')).length, 1, 'the node is labelled once');
    assert.ok(calls().includes('stack deploy --prune --detach=true --resolve-image never -c stack.yml swarmy'));
    // the login was new before the proxy ran, then unchanged: the proxy is never restarted
    assert.ok(!calls().some((c) => c.startsWith('service update')), calls().join('\n'));
    // a new password reaches the running proxy through a restart
    fs.appendFileSync(path.join(dir, '.env'), 'STACK_PROXY_PASSWORD=another-one\n');
    assert.equal(run('scripts/deploy.sh').status, 0);
    assert.ok(calls().includes('service update --quiet --force swarmy_caddy'), calls().join('\n'));
  });

  test('deploy.sh: a new password hashed by a run that failed before it restarted the proxy restarts the proxy on the next run', () => {
    const { dir, run, calls } = setup(REQUEST);
    assert.equal(run('scripts/deploy.sh').status, 0);
    const authFile = path.join(dir, 'caddy/basic-auth.caddy');
    fs.appendFileSync(path.join(dir, '.env'), 'STACK_PROXY_PASSWORD=another-one\n');
    // the login file the running proxy read is older than the user's edit of .env
    const earlier = new Date(Date.now() - 10_000);
    fs.utimesSync(authFile, earlier, earlier);
    let before = calls().length;
    assert.notEqual(run('scripts/deploy.sh', [], { FAKE_DEPLOY_FAILS: '1' }).status, 0);
    assert.ok(calls().slice(before).some((c) => c.startsWith('run --rm -i')), 'the new password was not hashed');
    assert.ok(!calls().slice(before).some((c) => c.startsWith('service update')), calls().slice(before).join('\n'));
    // the file is newer than .env now, so nothing is hashed again; the proxy still runs with the old login
    before = calls().length;
    const next = run('scripts/deploy.sh');
    assert.equal(next.status, 0, next.stderr + next.stdout);
    let after = calls().slice(before);
    assert.ok(!after.some((c) => c.startsWith('run --rm -i')), after.join('\n'));
    assert.ok(after.includes('service update --quiet --force swarmy_caddy'), 'the running proxy was not restarted: ' + after.join('\n'));
    before = calls().length;
    assert.equal(run('scripts/deploy.sh').status, 0);
    after = calls().slice(before);
    assert.ok(!after.some((c) => c.startsWith('service update')), after.join('\n'));
  });

  test('deploy.sh: a Ctrl-C during docker stack deploy says where it stopped and how to finish, exit 130; a re-run deploys', async () => {
    const { root, dir, run, runAsync } = setup(REQUEST);
    const underWay = path.join(root, 'deploying');
    const deploy = runAsync('scripts/deploy.sh', { FAKE_DEPLOY_SLOW: underWay });
    for (let i = 0; i < 300 && !fs.existsSync(underWay); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.existsSync(underWay), 'the deploy never started');
    process.kill(-deploy.pid, 'SIGINT');
    const result = await deploy.done;
    assert.equal(result.code, 130, result.stderr);
    assert.ok(fs.existsSync(path.join(dir, '.env')), '.env is kept');
    assert.match(result.stderr, /scripts\/deploy\.sh stopped, interrupted by SIGINT while docker stack deploy ran: .*run scripts\/deploy\.sh again to finish/);
    const again = run('scripts/deploy.sh');
    assert.equal(again.status, 0, again.stderr);
  });

  test('deploy.sh makes a Swarm secret of each secret value stack.yml names, once; a changed value is a new secret; a failed create deploys nothing', () => {
    const { dir, run, calls, deployEnv, secrets } = setup(REQUEST);
    const referenced = [...new Set([...fs.readFileSync(path.join(dir, 'stack.yml'), 'utf8').matchAll(/\$\{STACK_SECRET_([A-Z0-9_]+)/g)].map((m) => m[1]))];
    assert.ok(referenced.includes('POSTGRESQL_POSTGRES_PASSWORD'), referenced.join(' '));
    assert.equal(run('scripts/deploy.sh').status, 0);
    const env = envExampleKeys(fs.readFileSync(path.join(dir, '.env'), 'utf8'));
    const made = secrets();
    assert.equal(made.size, referenced.length, 'one secret per value');
    for (const key of referenced) {
      const name = deployEnv().get(`STACK_SECRET_${key}`)!;
      assert.match(name, /^swarmy_[0-9a-f]{20}$/, key);
      // the value as it is (no newline), or one newline for an empty optional key
      assert.equal(made.get(name), env.get(key) || '\n', key);
    }
    assert.ok(calls().some((c) => /^secret create --label com\.docker\.stack\.namespace=swarmy --label stackwright\.key=POSTGRESQL_POSTGRES_PASSWORD swarmy_\w+ -$/.test(c)), calls().join('\n'));
    // again: nothing new
    assert.equal(run('scripts/deploy.sh').status, 0);
    assert.equal(secrets().size, referenced.length);
    // a changed value: one more secret, and the deploy names it
    const old = deployEnv().get('STACK_SECRET_POSTGRESQL_POSTGRES_PASSWORD');
    fs.writeFileSync(path.join(dir, '.env'), fs.readFileSync(path.join(dir, '.env'), 'utf8').replace(/^POSTGRESQL_POSTGRES_PASSWORD=.*$/m, 'POSTGRESQL_POSTGRES_PASSWORD=rotated0rotated0rotated0rotated0'));
    assert.equal(run('scripts/deploy.sh').status, 0);
    assert.equal(secrets().size, referenced.length + 1);
    const now = deployEnv().get('STACK_SECRET_POSTGRESQL_POSTGRES_PASSWORD')!;
    assert.notEqual(now, old);
    assert.equal(secrets().get(now), 'rotated0rotated0rotated0rotated0');
    // a create that fails: the message names the key, no deploy runs
    fs.writeFileSync(path.join(dir, '.env'), fs.readFileSync(path.join(dir, '.env'), 'utf8').replace(/^POSTGRESQL_POSTGRES_PASSWORD=.*$/m, 'POSTGRESQL_POSTGRES_PASSWORD=rotated1rotated1rotated1rotated1'));
    const deploys = calls().filter((c) => c.startsWith('stack deploy')).length;
    const failed = run('scripts/deploy.sh', [], { FAKE_SECRET_FAILS: '1' });
    assert.notEqual(failed.status, 0);
    assert.match(failed.stderr, /could not create the Swarm secret for POSTGRESQL_POSTGRES_PASSWORD: the stack was not deployed/);
    assert.equal(calls().filter((c) => c.startsWith('stack deploy')).length, deploys);
  });

  test('backup.sh keeps the newest STACK_BACKUP_KEEP backups, leaves other folders; a bad value, or a node without the volumes, stops it before any service scales', () => {
    const { dir, run, calls } = setup(REQUEST);
    assert.equal(run('scripts/deploy.sh').status, 0);
    const backups = path.join(dir, 'backups');
    const ours = ['20240101T000000Z', '20240102T000000Z', '20240103T000000Z'];
    const others = ['before-restore-20240101T000000Z', 'mine', '20240104T000000Z.partial'];
    for (const name of [...ours, ...others]) fs.mkdirSync(path.join(backups, name), { recursive: true });
    fs.appendFileSync(path.join(dir, '.env'), 'STACK_BACKUP_KEEP=2\n');
    const res = run('scripts/backup.sh');
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const made = /backed up \d+ volume\(s\) to backups\/(\S+)/.exec(res.stdout)?.[1];
    assert.ok(made && made > ours.at(-1)!, res.stdout);
    // the new backup and the newest before it stay; a restore's copy is another kind (one, under 2), and the
    // user's folder and a partial one are not backups of ours
    assert.deepEqual(fs.readdirSync(backups).sort(), [ours[2], '20240104T000000Z.partial', made, 'before-restore-20240101T000000Z', 'mine'].sort());
    assert.match(res.stdout, /removed the old backup backups\/20240101T000000Z \(STACK_BACKUP_KEEP=2\)/);
    // the stack's services when it was made (what a verify of it starts), by their names in stack.yml, sorted
    assert.equal(fs.readFileSync(path.join(backups, made!, 'services'), 'utf8'), 'openclaw\npostgresql\npostgresql-setup\n');
    assert.ok(calls().includes('stack deploy --prune --detach=true --resolve-image always -c stack.yml swarmy'), 'deployed again');
    fs.appendFileSync(path.join(dir, '.env'), 'STACK_BACKUP_KEEP=none\n');
    const scaled = calls().filter((c) => c.startsWith('service scale')).length;
    const bad = run('scripts/backup.sh');
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, /STACK_BACKUP_KEEP in \.env must be a whole number of at least 1 \(got 'none'\)/);
    assert.equal(calls().filter((c) => c.startsWith('service scale')).length, scaled, 'no service was scaled');
    // a node without the stack's volumes (another node, or a new machine before its first deploy)
    const elsewhere = run('scripts/backup.sh', ['--restore', path.join(backups, made)], { FAKE_NO_VOLUMES: '1' });
    assert.equal(elsewhere.status, 1, elsewhere.stdout);
    assert.match(elsewhere.stderr, /no volume swarmy_\S+ on this node: run this on the node labelled stackwright\.swarmy=true \(on a new machine, scripts\/deploy\.sh first makes the volumes a restore fills\); nothing was stopped/);
    assert.equal(calls().filter((c) => c.startsWith('service scale')).length, scaled, 'no service was scaled');
  });

  test('deploy.sh stops before deploying on an engine that is no Swarm manager, and on a required value .env lacks', () => {
    const { run, calls } = setup(REQUEST);
    const res = run('scripts/deploy.sh', [], { FAKE_NOT_MANAGER: '1' });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /not a Swarm manager: run 'docker swarm init'/);
    assert.ok(!calls().some((c) => c.startsWith('stack deploy')));
    const needs = setup({ name: 'needy', services: ['cloudflared'] });
    const missing = needs.run('scripts/deploy.sh');
    assert.equal(missing.status, 1, missing.stdout);
    assert.match(missing.stderr, /set CLOUDFLARED_\w+ in \.env/);
    assert.ok(!needs.calls().some((c) => c.startsWith('stack deploy')));
  });

  test('update.sh: a failed update is rolled back with docker service rollback and .env names the previous image again; rollback.sh returns to the recorded images', () => {
    const { dir, run, calls, deployEnv } = setup(REQUEST);
    assert.equal(run('scripts/deploy.sh').status, 0);
    const envFile = path.join(dir, '.env');
    const image = () => envExampleKeys(fs.readFileSync(envFile, 'utf8')).get('OPENCLAW_IMAGE');
    const original = image();
    assert.ok(original, '.env names the image');
    const bad = run('scripts/update.sh', ['openclaw=example/openclaw:broken'], { FAKE_UPDATE_FAILS: '1' });
    assert.equal(bad.status, 1, bad.stdout);
    assert.match(bad.stderr, /update failed: swarmy_openclaw \(update paused\)/);
    assert.ok(calls().includes('service rollback --quiet swarmy_openclaw'), calls().join('\n'));
    assert.match(bad.stderr, /back on their previous images/);
    assert.equal(image(), original, '.env names the previous image again');
    // the failed deploy had the new image; the rollback deployed the previous one again (a service whose update had
    // completed goes back too)
    assert.equal(calls().filter((c) => c.startsWith('stack deploy')).length, 3, calls().join('\n'));
    assert.equal(deployEnv().get('OPENCLAW_IMAGE'), original, 'the rollback deployed the previous image');
    // a good update, then back
    const good = run('scripts/update.sh', ['openclaw=example/openclaw:2']);
    assert.equal(good.status, 0, good.stderr);
    assert.equal(image(), 'example/openclaw:2');
    assert.equal(run('scripts/rollback.sh').status, 0);
    assert.equal(image(), original);
    assert.equal(deployEnv().get('OPENCLAW_IMAGE'), original, 'deployed with the image before the update');
    assert.equal(run('scripts/rollback.sh').status, 0, 'safe to run again');
    const unknown = run('scripts/update.sh', ['nosuch=x:1']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no service "nosuch" in this stack/);
  });

  test('remove.sh is a no-op when the stack is not deployed and removes it when it is; status.sh names a failing task', () => {
    const { run, calls } = setup(REQUEST);
    const none = run('scripts/remove.sh');
    assert.equal(none.status, 0);
    assert.match(none.stdout, /not deployed: nothing to remove/);
    assert.ok(!calls().some((c) => c.startsWith('stack rm')));
    const removed = run('scripts/remove.sh', [], { FAKE_DEPLOYED: '1' });
    assert.equal(removed.status, 0, removed.stderr);
    assert.ok(calls().includes('stack rm swarmy'));
    assert.equal(run('scripts/status.sh', [], { FAKE_DEPLOYED: '1' }).status, 0);
    const failing = run('scripts/status.sh', [], { FAKE_DEPLOYED: '1', FAKE_TASK_ERROR: '1' });
    assert.equal(failing.status, 1);
    assert.match(failing.stdout, /No such image: openclaw:broken/);
    assert.equal(run('scripts/status.sh').status, 3, 'not deployed');
  });

  // ShellCheck takes seconds per bundle: the shapes the templates branch on (database jobs, proxy login or
  // none, required keys, the Docker socket proxy, no volumes)
  const lint: Parameters<Generator['generate']>[0][] = [
    { name: 'lint', preset: 'automation-hub', proxy: 'traefik', domain: 'example.com' },
    { name: 'lint', preset: 'dev-sandbox', proxy: 'none' },
    { name: 'lint', services: ['cloudflared', 'portainer'], proxy: 'nginx' },
    { name: 'lint', services: ['cyberchef'], proxy: 'caddy', domain: 'example.com' },
  ];
  test('the scripts pass ShellCheck, for each shape of stack the templates branch on', () => {
    for (const request of lint) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-swarm-lint-'));
      writeBundle(dir, generator.generate({ ...request, deploymentType: 'swarm' }).files);
      const scripts = fs.readdirSync(path.join(dir, 'scripts')).map((f) => `scripts/${f}`);
      const res = spawnSync('shellcheck', ['-x', '-S', 'warning', ...scripts], { cwd: dir, encoding: 'utf8' });
      assert.equal(res.status, 0, `${JSON.stringify(request)}: ${res.stdout}${res.stderr}`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
