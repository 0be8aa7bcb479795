// A stack's data through its own scripts on the real engine: a backup restores what it saved, a live backup
// dumps the database without stopping it and verify proves it (leaving nothing behind), a damaged archive
// deletes nothing, a restore onto an engine without the stack's volumes brings it all back, an update pulls
// a newer image from a registry and keeps it when healthy, an unhealthy update is rolled back by itself with
// the data intact, and --rollback returns to the images before the last update.
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems } from './checks.js';
import { dockerOk, requireEngine } from './engine.js';
import { LocalRegistry } from './registry.js';
import { Stack } from './stack.js';
import { ciOrAll } from './tiers.js';

const QDRANT = 'qdrant/qdrant:v1.19.0';

describe('backup, restore, update and rollback of a stack with PostgreSQL, MariaDB, Valkey and Qdrant', { concurrency: false }, () => {
  let stack: Stack;
  let registry: LocalRegistry;

  const sql = (statement: string): Promise<string> => stack.sql(statement);
  /** A statement through the server's own client in its container, with the password from its environment. */
  const inContainer = async (service: string, shell: string, ...args: string[]): Promise<string> => {
    const result = await stack.compose(['exec', '-T', service, 'sh', '-c', shell, 'sh', ...args]);
    assert.equal(result.code, 0, `${service}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const mariadb = (statement: string) => inContainer('mariadb', 'mariadb -uroot -p"$MARIADB_ROOT_PASSWORD" -N -B -e "$1"', statement);
  const valkey = (...words: string[]) => inContainer('valkey', 'valkey-cli -a "$VALKEY_PASSWORD" --no-auth-warning "$@"', ...words);
  const qdrantLogs = async (): Promise<string> => `qdrant's log:\n${(await stack.compose(['logs', '--tail', '30', 'qdrant'])).stdout}`;
  const newestBackup = (): string => readdirSync(path.join(stack.dir, 'backups')).filter((d) => /^\d{8}T/.test(d)).sort().at(-1)!;
  const qdrantImage = async (): Promise<string> => {
    const id = (await stack.compose(['ps', '-q', 'qdrant'])).stdout.trim();
    return (await dockerOk(['inspect', '--format', '{{.Config.Image}} {{.Image}}', id])).trim();
  };

  /** Every volume on the engine whose name starts with prefix, labelled or not. */
  const volumesNamed = async (prefix: string): Promise<string[]> =>
    (await dockerOk(['volume', 'ls', '-q', '--filter', `name=^${prefix}`])).split('\n').filter(Boolean).sort();

  before(async () => {
    await requireEngine();
    stack = await Stack.generate({ name: 'e2e-data', services: ['postgresql', 'mariadb', 'valkey', 'qdrant'] });
    await stack.provideImages();
    stack.writeEnv({ OPENAI_API_KEY: 'sk-stackwright-engine-test' });
    registry = await LocalRegistry.start();
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh');
    await sql("create table notes (body text); insert into notes values ('saved')");
  });
  after(async () => {
    await stack?.remove();
    registry?.stop();
  });

  test('backup.sh saves every volume and the stack is healthy again; a restore brings the saved data back', async () => {
    const backup = await stack.script('backup.sh');
    assertSucceeded(backup, 'backup.sh');
    const backups = readdirSync(path.join(stack.dir, 'backups')).filter((d) => /^\d{8}T/.test(d));
    assert.equal(backups.length, 1);
    await sql("insert into notes values ('after the backup')");
    assert.equal(await sql('select count(*) from notes'), '2');

    const restore = await stack.script('backup.sh', ['restore', path.join('backups', backups[0])]);
    assertSucceeded(restore, 'restore');
    assert.doesNotMatch(restore.stderr, /was backed up running/, 'the same images as at the backup: no version warning');
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh after the restore');
    assert.equal(await sql('select string_agg(body, \',\') from notes'), 'saved');
    assert.deepEqual(containerProblems(await stack.containers()), []);
  });

  test('backup.sh --live dumps PostgreSQL with its own tool without stopping anything, and verify proves it restores', async () => {
    const startedAt = async () => (await dockerOk(['inspect', '--format', '{{.State.StartedAt}}', (await stack.compose(['ps', '-q', 'postgresql'])).stdout.trim()])).trim();
    const before = await startedAt();
    const live = await stack.script('backup.sh', ['--live']);
    assertSucceeded(live, 'backup.sh --live');
    assert.equal(await startedAt(), before, 'the database kept running');
    const dir = newestBackup();
    assert.match(readFileSync(path.join(stack.dir, 'backups', dir, 'MANIFEST'), 'utf8'), /^dump /m, 'the manifest lists the dump');
    const verify = await stack.script('backup.sh', ['verify', path.join('backups', dir)]);
    assertSucceeded(verify, 'verify');
    const leftovers = (await dockerOk(['ps', '-aq', '--filter', 'label=com.docker.compose.project=e2e-data-verify'])).trim();
    assert.equal(leftovers, '', 'verify removes its scratch copy');
    assert.deepEqual(await volumesNamed('e2e-data-verify_'), [], 'and its volumes');
    assert.equal(await sql('select count(*) from notes'), '1', 'the running stack is untouched');
  });

  test('a restore from a live backup brings back what each database held: PostgreSQL, MariaDB and Valkey dumps', ciOrAll(false), async () => {
    await sql("insert into notes values ('live')");
    await mariadb("create database if not exists e2e; create table if not exists e2e.notes (body text); insert into e2e.notes values ('live')");
    assert.equal(await valkey('SET', 'note', 'live'), 'OK');
    const live = await stack.script('backup.sh', ['--live']);
    assertSucceeded(live, 'backup.sh --live');
    const manifest = readFileSync(path.join(stack.dir, 'backups', newestBackup(), 'MANIFEST'), 'utf8');
    for (const kind of ['postgres', 'mariadb', 'valkey']) assert.match(manifest, new RegExp(`^dump \\S+ \\S+ ${kind}$`, 'm'), `a ${kind} dump`);

    await sql("update notes set body = 'changed' where body = 'live'");
    await mariadb("update e2e.notes set body = 'changed'; create table e2e.added (x int)");
    await valkey('SET', 'note', 'changed');
    await valkey('SET', 'added', 'yes');
    const restore = await stack.script('backup.sh', ['restore', path.join('backups', newestBackup())]);
    assertSucceeded(restore, 'restore');
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh after the restore');
    assert.deepEqual(containerProblems(await stack.containers()), []);

    assert.equal(await sql("select string_agg(body, ',' order by body) from notes"), 'live,saved');
    assert.equal(await mariadb('select group_concat(body) from e2e.notes'), 'live');
    assert.equal(await mariadb("select count(*) from information_schema.tables where table_schema = 'e2e' and table_name = 'added'"), '0');
    assert.equal(await valkey('GET', 'note'), 'live');
    assert.equal(await valkey('EXISTS', 'added'), '0');
    await sql("delete from notes where body = 'live'");
  });

  test('a restore from a damaged archive is refused before anything is deleted', async () => {
    const source = path.join(stack.dir, 'backups', newestBackup());
    const damaged = path.join(stack.dir, 'backups', 'damaged');
    cpSync(source, damaged, { recursive: true });
    const archive = readdirSync(damaged).find((f) => f.endsWith('.tar.gz'))!;
    const bytes = readFileSync(path.join(damaged, archive));
    writeFileSync(path.join(damaged, archive), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await sql("insert into notes values ('kept')");
    const restore = await stack.script('backup.sh', ['restore', path.join('backups', 'damaged')]);
    assert.notEqual(restore.code, 0, 'a damaged archive is refused');
    assert.match(restore.stderr, new RegExp(archive.replace(/[.]/g, '\\.')));
    assert.equal(await sql('select count(*) from notes'), '2', 'nothing was deleted');
    rmSync(damaged, { recursive: true, force: true });
    await sql("delete from notes where body = 'kept'");
  });

  test('a restore onto an engine without the stack\'s volumes (a new machine) brings the data back, in volumes Compose owns', ciOrAll(false), async () => {
    // the newest backup is the live one of the test before, holding 'live' and 'saved'
    const down = await stack.compose(['down', '--volumes']);
    assertSucceeded(down, 'docker compose down --volumes');
    assert.deepEqual(await volumesNamed('e2e-data_'), [], 'no volume of the stack is left');
    const restore = await stack.script('backup.sh', ['restore', path.join('backups', newestBackup())]);
    assertSucceeded(restore, 'restore');
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh after the restore');
    assert.doesNotMatch(start.stdout + start.stderr, /not created by Docker Compose/);
    assert.deepEqual(containerProblems(await stack.containers()), []);
    assert.equal(await sql("select string_agg(body, ',' order by body) from notes"), 'live,saved');
    assert.equal(await mariadb('select group_concat(body) from e2e.notes'), 'live');
    assert.equal(await valkey('GET', 'note'), 'live');
    // labelled as Compose labels its own: `down --volumes` (and verify's clean-up) can remove them
    assert.deepEqual(await stack.volumes(), await volumesNamed('e2e-data_'));
    await sql("delete from notes where body = 'live'");
  });

  test('update.sh pulls the image .env names from a registry, recreates the service and keeps it when healthy', async () => {
    await dockerOk(['build', '-q', '-t', 'stackwright-test/qdrant-next', '-'], { input: `FROM ${QDRANT}\nLABEL org.stackwright.test=next\n` });
    const next = await registry.push('stackwright-test/qdrant-next', 'qdrant', 'next');
    const before = await qdrantImage();
    stack.setEnv('QDRANT_IMAGE', next);
    const update = await stack.script('update.sh', ['--no-backup']);
    assertSucceeded(update, 'update.sh');
    const after = await qdrantImage();
    assert.equal(after.split(' ')[0], next);
    assert.notEqual(after.split(' ')[1], before.split(' ')[1], 'a new image runs');
    assert.deepEqual(containerProblems(await stack.containers()), []);
    assert.equal(await sql('select count(*) from notes'), '1', 'the data stays');
  });

  test('an update whose health check fails is rolled back by itself, with the data intact', async () => {
    // the stand-in, but listening on no port: Qdrant's health check never passes
    await dockerOk(['build', '-q', '-t', 'stackwright-test/qdrant-broken', '-'], {
      input: `FROM ${QDRANT}\nRUN printf '%s' '{"image":"broken","ports":[],"volumes":["/qdrant/storage"],"binaries":[]}' > /standin/config.json\n`,
    });
    const broken = await registry.push('stackwright-test/qdrant-broken', 'qdrant', 'broken');
    const before = await qdrantImage();
    stack.setEnv('QDRANT_IMAGE', broken);
    const update = await stack.script('update.sh', ['--no-backup'], { STACK_START_TIMEOUT: '60' });
    assert.notEqual(update.code, 0, 'a failed update is not reported as done');
    assert.match(update.stderr, /rolled back/);
    assert.equal((await qdrantImage()).split(' ')[1], before.split(' ')[1], 'the image from before runs again');
    assert.deepEqual(containerProblems(await stack.containers()).filter((p) => !/restarted/.test(p)), []);
    assert.equal(await sql('select count(*) from notes'), '1', 'the data stays');
  });

  test('update.sh --rollback returns to the images from before the last update', ciOrAll(false), async () => {
    stack.setEnv('QDRANT_IMAGE', QDRANT);
    const update = await stack.script('update.sh', ['--no-backup']);
    assertSucceeded(update, 'update.sh', `\n${await qdrantLogs()}`);
    const pinned = await qdrantImage();
    const rollback = await stack.script('update.sh', ['--rollback']);
    assertSucceeded(rollback, '--rollback');
    assert.notEqual((await qdrantImage()).split(' ')[1], pinned.split(' ')[1], 'the image before the last update runs');
    assert.deepEqual(containerProblems(await stack.containers()).filter((p) => !/restarted/.test(p)), []);
  });
});
