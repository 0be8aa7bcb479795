// scripts/backup.sh run for real against real database servers: a stand-in `docker`
// (test/support/fake-docker-servers.sh) runs each "container" command on this machine, with a real
// PostgreSQL and a real redis-server per Compose project whose data live in the "volumes" (folders). So
// the dumps, loads and archive checks the scripts run are the real tools' work; only the engine is
// missing (the real-engine tier proves the docker and compose parts). MariaDB/MySQL dump and load
// commands are run against a real MariaDB in the second part.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { readConfig, REPO_ROOT } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { writeBundle } from '../support/bundle.js';
import { startMariaDb, type MariaDb } from '../support/mariadb.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 50);
const PG_BIN = (() => {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().at(-1) : undefined;
  return version ? path.join(root, version, 'bin') : '';
})();

let root: string;
let dir: string;
const NAME = 'keeper';

/** The environment of the scripts: the stand-in docker first on PATH, no real one. */
const scriptEnv = () => ({ PATH: `${path.join(root, 'bin')}:/usr/bin:/bin:/usr/sbin:/sbin`, HOME: root, FAKE_ROOT: root, FAKE_PG_BIN: PG_BIN });

function run(args: string[]) {
  return spawnSync('bash', [path.join(dir, 'scripts/backup.sh'), ...args], { cwd: root, encoding: 'utf8', timeout: 300_000, env: scriptEnv() });
}

/** What the user would type in the stack folder (docker compose up / down). */
function compose(...args: string[]) {
  return spawnSync('docker', ['compose', ...args], { cwd: dir, encoding: 'utf8', timeout: 120_000, env: scriptEnv() });
}

const envOf = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(fs.readFileSync(path.join(dir, '.env'), 'utf8'))![1];
const projectState = (project: string) => path.join(root, 'projects', project);
function pgPort(project: string): number {
  const sum = Number(spawnSync('sh', ['-c', `printf '%s' "$1" | cksum | cut -d' ' -f1`, '_', project], { encoding: 'utf8' }).stdout.trim());
  return 20000 + (sum % 20000);
}
function sql(query: string, database = 'app', project = NAME) {
  return spawnSync('psql', ['-XtA', '-h', path.join(projectState(project), 'pgsock'), '-p', String(pgPort(project) + 1), '-U', 'stack', '-d', database, '-c', query], { encoding: 'utf8', timeout: 20_000 });
}
function redis(...args: string[]) {
  return spawnSync('redis-cli', ['-p', String(pgPort(NAME) + 2), '-a', envOf('REDIS_REDIS_PASSWORD'), '--no-auth-warning', ...args], { encoding: 'utf8', timeout: 20_000 }).stdout.trim();
}
const marker = () => path.join(root, 'volumes', `${NAME}_qdrant-storage`, 'collection.json');
const dockerLog = () => fs.readFileSync(path.join(root, 'docker.log'), 'utf8').trim().split('\n');
const backupsNow = () => fs.readdirSync(path.join(dir, 'backups')).sort();

describe('scripts/backup.sh against real PostgreSQL and Redis servers', () => {
  before(() => {
    assert.ok(PG_BIN && fs.existsSync(path.join(PG_BIN, 'initdb')), 'PostgreSQL server binaries are missing: run npm run setup:test-tools');
    assert.equal(spawnSync('redis-server', ['--version']).status, 0, 'redis-server is missing: run npm run setup:test-tools');
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-backups-'));
    fs.chmodSync(root, 0o755);
    dir = path.join(root, NAME);
    const bundle = generator.generate({ name: NAME, services: ['postgresql', 'redis', 'qdrant'] });
    writeBundle(dir, bundle.files);
    fs.mkdirSync(path.join(root, 'bin'));
    fs.copyFileSync(path.join(REPO_ROOT, 'test/support/fake-docker-servers.sh'), path.join(root, 'bin/docker'));
    fs.chmodSync(path.join(root, 'bin/docker'), 0o755);
    fs.writeFileSync(path.join(root, 'services'), 'openclaw\npostgresql\nqdrant\nredis\n');
    // .env as start.sh leaves it: the example with its secrets filled
    fs.writeFileSync(path.join(dir, '.env'), bundle.files['.env.example'].replace(/^(\w+_PASSWORD)=$/gm, '$1=pw-$1').replace(/^(\w+)=$/gm, '$1=x') + 'STACK_BACKUP_KEEP=3\n', { mode: 0o600 });
    // the stack is running and holds data
    const up = compose('up', '-d', '--remove-orphans');
    assert.equal(up.status, 0, up.stderr + up.stdout);
    assert.equal(sql('create database app', 'postgres').status, 0);
    assert.equal(sql('create table notes (id int primary key, body text); insert into notes select g, \'note \' || g from generate_series(1, 500) g').status, 0);
    assert.equal(redis('set', 'session:1', 'alive'), 'OK');
    assert.equal(redis('rpush', 'queue', 'a', 'b', 'c'), '3');
    fs.mkdirSync(path.dirname(marker()), { recursive: true });
    fs.writeFileSync(marker(), '{"vectors":42}');
  });

  after(() => {
    if (!root) return;
    compose('down');
    fs.rmSync(root, { recursive: true, force: true });
  });

  let live: string;

  test('--live dumps PostgreSQL with pg_dumpall and Redis with SAVE inside their containers, archives the rest, records what made it, stops nothing', () => {
    const before = dockerLog().length;
    const res = run(['--live']);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    live = path.join(dir, 'backups', backupsNow().at(-1)!);
    const log = dockerLog().slice(before);
    assert.ok(!log.some((l) => /^compose (stop|down)/.test(l)), `nothing is stopped:\n${log.join('\n')}`);
    assert.ok(log.some((l) => l.startsWith('compose exec -T postgresql sh -c exec pg_dumpall -U "$POSTGRES_USER" --clean --if-exists --no-role-passwords')), log.join('\n'));
    assert.ok(log.some((l) => l.startsWith('compose exec -T redis sh -c redis-cli -a "$REDIS_PASSWORD" --no-auth-warning SAVE')), log.join('\n'));
    const manifest = fs.readFileSync(path.join(live, 'MANIFEST'), 'utf8');
    assert.match(manifest, /^mode live$/m);
    assert.match(manifest, /^dump postgresql postgresql\.postgres\.gz postgres$/m);
    assert.match(manifest, /^dump redis redis\.redis\.gz redis$/m);
    assert.match(manifest, /^volume qdrant-storage qdrant-storage\.tar\.gz$/m);
    assert.doesNotMatch(manifest, /^volume (postgresql|redis)-data/m, 'the dumped databases are not copied file by file');
    assert.match(manifest, /^image postgresql example\/postgresql:1 sha256:id-postgresql$/m);
    assert.match(manifest, /^data postgresql .*app=1/m, 'what the database held');
    assert.match(manifest, /^data redis keys=2$/m);
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'stackwright.json'), 'utf8'));
    assert.match(manifest, new RegExp(`^catalogue ${record.stackwright.catalogueRevision}$`, 'm'));
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(live, 'stackwright.json'), 'utf8')), record);
    const dump = spawnSync('gunzip', ['-c', path.join(live, 'postgresql.postgres.gz')], { encoding: 'utf8' }).stdout;
    assert.match(dump, /COPY public\.notes \(id, body\) FROM stdin;\n1\tnote 1\n/, 'a real pg_dumpall of the data');
    assert.match(res.stdout, /prove it: scripts\/backup\.sh verify/);
  });

  test('restore refuses a damaged archive and deletes nothing', () => {
    // the stack moves on after the backup
    assert.equal(sql('delete from notes where id > 10').status, 0);
    fs.writeFileSync(marker(), '{"vectors":0}');
    const damaged = path.join(dir, 'backups', 'damaged');
    fs.cpSync(live, damaged, { recursive: true });
    const archive = path.join(damaged, 'qdrant-storage.tar.gz');
    fs.writeFileSync(archive, fs.readFileSync(archive).subarray(0, 40));
    const before = dockerLog().length;
    const res = run(['restore', damaged]);
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /qdrant-storage\.tar\.gz is damaged \(gzip -t fails\)/);
    assert.match(res.stderr, /refused: .* cannot be restored whole; nothing was changed/);
    assert.deepEqual(dockerLog().slice(before).filter((l) => /down|run --rm|volume create|exec/.test(l)), [], 'no container was stopped and no volume touched');
    assert.equal(sql('select count(*) from notes').stdout.trim(), '10');
    assert.equal(fs.readFileSync(marker(), 'utf8'), '{"vectors":0}');
    // gzip of a few bytes that are no tar: GNU tar lists it as an empty archive and succeeds; it is refused
    fs.writeFileSync(archive, zlib.gzipSync('not a tar archive\n'));
    const empty = run(['restore', damaged]);
    assert.equal(empty.status, 1, empty.stdout);
    assert.match(empty.stderr, /qdrant-storage\.tar\.gz is damaged \(tar -t fails or lists nothing\)/);
    assert.equal(fs.readFileSync(marker(), 'utf8'), '{"vectors":0}');
    // a missing dump is refused the same way
    fs.rmSync(path.join(damaged, 'redis.redis.gz'));
    fs.copyFileSync(path.join(live, 'qdrant-storage.tar.gz'), archive);
    assert.match(run(['restore', damaged]).stderr, /redis\.redis\.gz is missing or empty/);
    fs.rmSync(damaged, { recursive: true });
  });

  test('restore brings every database and volume back, loading the dumps with the servers\' own clients', () => {
    redis('flushall');
    const res = run(['restore', live]);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    assert.match(res.stdout, /restored postgresql from its postgres dump/);
    assert.match(res.stdout, /restored redis from its redis dump/);
    assert.doesNotMatch(res.stderr, /warning/, 'same images and catalogue: no warning');
    compose('up', '-d', '--remove-orphans');
    assert.equal(sql('select count(*) from notes').stdout.trim(), '500');
    assert.equal(redis('get', 'session:1'), 'alive');
    assert.equal(redis('lrange', 'queue', '0', '-1'), 'a\nb\nc');
    assert.equal(fs.readFileSync(marker(), 'utf8'), '{"vectors":42}');
    // the AOF holds the restored keys, so they outlive a restart of the server
    assert.ok(fs.readdirSync(path.join(root, 'volumes', `${NAME}_redis-data`, 'appendonlydir')).some((f) => f.endsWith('.base.rdb')));
  });

  test('verify restores into a scratch project of its own, finds the data there, removes it, and leaves the stack alone', () => {
    assert.equal(sql('insert into notes values (1000, \'after\')').status, 0);
    const before = dockerLog().length;
    const res = run(['verify', live]);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    assert.match(res.stdout, /postgresql: holds .*app=1.*, as when backed up/);
    assert.match(res.stdout, /redis: holds keys=2, as when backed up/);
    assert.match(res.stdout, /verified: /);
    const log = dockerLog().slice(before);
    assert.ok(log.includes(`compose -p ${NAME}-verify up -d --remove-orphans`), log.join('\n'));
    assert.ok(log.includes(`compose -p ${NAME}-verify down -v --remove-orphans`), 'the copy and its volumes are removed');
    assert.deepEqual(fs.readdirSync(path.join(root, 'volumes')).filter((v) => v.startsWith(`${NAME}-verify_`)), [], 'no scratch volume is left');
    assert.equal(sql('select count(*) from notes').stdout.trim(), '501', 'the running stack keeps its newer data');
  });

  test('verify fails when the restored database holds nothing', () => {
    const empty = path.join(dir, 'backups', 'empty-dump');
    fs.cpSync(live, empty, { recursive: true });
    // a well-formed dump without the app database: it passes the archive checks, so only verify can tell
    const none = spawnSync('sh', ['-c', `printf 'select 1;\\n' | gzip > "${path.join(empty, 'postgresql.postgres.gz')}"`]);
    assert.equal(none.status, 0);
    const res = run(['verify', empty]);
    assert.notEqual(res.status, 0, res.stdout);
    assert.match(res.stderr, /postgresql: lacks app=1/);
    assert.match(res.stderr, /did not prove itself/);
    assert.deepEqual(fs.readdirSync(path.join(root, 'volumes')).filter((v) => v.startsWith(`${NAME}-verify_`)), [], 'the copy is removed on failure too');
    fs.rmSync(empty, { recursive: true });
  });

  test('a restore onto other versions says what differs', () => {
    const other = path.join(dir, 'backups', 'other-versions');
    fs.cpSync(live, other, { recursive: true });
    const file = path.join(other, 'MANIFEST');
    // only the qdrant volume (a quick restore), recorded as made with an older qdrant and catalogue
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('image qdrant example/qdrant:1 sha256:id-qdrant', 'image qdrant example/qdrant:0.9 sha256:id-old')
      .replace(/^catalogue .*$/m, 'catalogue 0000older').replace(/^(dump|data) .*\n/gm, ''));
    const res = run(['restore', other]);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stderr, /warning: qdrant was backed up running example\/qdrant:0\.9 \(sha256:id-old\); the stack now names example\/qdrant:1/);
    assert.match(res.stderr, /warning: the backup was made from catalogue revision 0000older; the stack is now at /);
    fs.rmSync(other, { recursive: true });
  });

  test('a restore that fails mid-way puts back what the volumes held and starts what ran; a re-run completes it', () => {
    compose('up', '-d', '--remove-orphans');
    fs.writeFileSync(marker(), '{"vectors":7}');
    const notes = sql('select count(*) from notes').stdout.trim();
    // the qdrant volume is emptied and unpacked, then the helper "fails"
    const res = spawnSync('bash', [path.join(dir, 'scripts/backup.sh'), 'restore', live], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...scriptEnv(), FAKE_FAIL_AFTER: `${live}:/backup:ro .*qdrant-storage` } });
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stderr, /fake fault after/);
    assert.match(res.stderr, /putting back what the volumes held before the restore \(from .*backups\/before-restore-\d{8}T\d{6}Z\)/);
    assert.match(res.stderr, /nothing was restored: the volumes hold what they held before and what ran runs again/);
    assert.equal(fs.readFileSync(marker(), 'utf8'), '{"vectors":7}', 'the volume holds what it held');
    assert.equal(sql('select count(*) from notes').stdout.trim(), notes, 'the database too, and it runs');
    const again = run(['restore', live]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /scripts\/backup\.sh restore .*before-restore-\d{8}T\d{6}Z undoes this restore/);
    assert.equal(fs.readFileSync(marker(), 'utf8'), '{"vectors":42}');
    compose('up', '-d', '--remove-orphans');
    // the live backup holds the 500 notes; the tests below expect the row verify's test added
    assert.equal(sql('select count(*) from notes').stdout.trim(), '500');
    assert.equal(sql('insert into notes values (1000, \'after\')').status, 0);
  });

  test('the default backup stops the stack, archives every volume, waits until it is healthy again, and keeps the newest STACK_BACKUP_KEEP', () => {
    compose('up', '-d', '--remove-orphans');
    for (let i = 0; i < 3; i++) {
      const before = dockerLog().length;
      const res = run([]);
      assert.equal(res.status, 0, res.stderr + res.stdout);
      const log = dockerLog().slice(before);
      const start = log.findIndex((l) => l.startsWith('compose up -d --no-recreate '));
      assert.ok(log.indexOf('compose stop') >= 0 && start > log.indexOf('compose stop'), log.join('\n'));
      assert.ok(log.slice(start).some((l) => l.includes('.State.Health')), 'it waits for the health checks after starting');
      // backups are named by the second
      spawnSync('sleep', ['1.1']);
    }
    const kept = backupsNow().filter((b) => /^\d{8}T/.test(b) && fs.existsSync(path.join(dir, 'backups', b, 'MANIFEST')));
    assert.equal(kept.length, 3, kept.join());
    assert.ok(!kept.includes(path.basename(live)), 'the oldest went');
    const newest = path.join(dir, 'backups', kept.at(-1)!);
    const manifest = fs.readFileSync(path.join(newest, 'MANIFEST'), 'utf8');
    assert.match(manifest, /^mode stopped$/m);
    assert.match(manifest, /^volume postgresql-data postgresql-data\.tar\.gz$/m);
    // a file-level copy of a stopped server restores too
    assert.equal(sql('drop table notes').status, 0);
    assert.equal(run(['restore', newest]).status, 0);
    compose('up', '-d', '--remove-orphans');
    assert.equal(sql('select count(*) from notes').stdout.trim(), '501', 'as when the newest backup was made');
  });
});

describe('the MySQL and MariaDB dump and load commands of scripts/backup.sh, against a real MariaDB', () => {
  const PORT = 53307;
  const ROOTPASS = 'root-secret-2';
  let mdir: string;
  let db: MariaDb | undefined;

  /** The command backup.sh runs in the container for KIND (dump_command, load_command or data_command). */
  function command(fn: string, kind: string, passwordEnv: string): string {
    const script = generator.generate({ name: 'dumps', services: ['mariadb', 'mysql'] }).files['scripts/backup.sh'];
    const defs = [...script.matchAll(/^(dump_command|load_command|data_command)\(\) \{\n[\s\S]*?^\}\n/gm)].map((m) => m[0]).join('\n');
    const res = spawnSync('bash', ['-c', `${defs}\n${fn} "$1" - "$2"`, '_', kind, passwordEnv], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    return res.stdout;
  }

  /**
   * sh -c COMMAND as in the container: the root password in the server's variable, the clients on the
   * server's socket (as the image's own my.cnf points them; this machine's /etc/mysql names another).
   */
  function inContainer(cmd: string, passwordEnv: string, input?: Buffer) {
    return spawnSync('sh', ['-c', cmd], { input, maxBuffer: 64 * 1024 * 1024, timeout: 60_000, env: { PATH: `${path.join(mdir, 'bin')}:${process.env.PATH}`, [passwordEnv]: ROOTPASS } });
  }

  function query(sql: string) {
    return spawnSync('mariadb', ['-h', '127.0.0.1', '-P', String(PORT), '-uroot', '-N', '-e', sql], { encoding: 'utf8', env: { ...process.env, MYSQL_PWD: ROOTPASS }, timeout: 20_000 });
  }

  before(async () => {
    db = await startMariaDb(PORT, ROOTPASS, 'stackwright-dumps-');
    mdir = db.dir;
    fs.mkdirSync(path.join(mdir, 'bin'));
    for (const client of ['mariadb', 'mariadb-dump', 'mysql', 'mysqldump']) {
      fs.writeFileSync(path.join(mdir, 'bin', client), `#!/bin/sh\nexec /usr/bin/${client} --no-defaults --socket=${db.sock} "$@"\n`, { mode: 0o755 });
    }
  });

  after(() => db?.stop());

  for (const [kind, passwordEnv] of [['mariadb', 'MARIADB_ROOT_PASSWORD'], ['mysql', 'MYSQL_ROOT_PASSWORD']]) {
    test(`${kind}: the dump holds the stack's databases, and loading it brings them back after they are gone`, () => {
      assert.equal(query(`create database shop_${kind}; create table shop_${kind}.orders (id int primary key, item text); insert into shop_${kind}.orders values (1, 'tea'), (2, 'bread');`).status, 0);
      const before = inContainer(command('data_command', kind, passwordEnv), passwordEnv).stdout.toString();
      assert.match(before, new RegExp(`shop_${kind}=1`));
      const dump = inContainer(command('dump_command', kind, passwordEnv), passwordEnv);
      assert.equal(dump.status, 0, dump.stderr.toString());
      const text = dump.stdout.toString();
      assert.match(text, new RegExp(`CREATE DATABASE .*shop_${kind}`));
      assert.doesNotMatch(text, /CREATE DATABASE .*`mysql`/, 'the accounts stay with .env, not the dump');
      assert.equal(query(`drop database shop_${kind}`).status, 0);
      const load = inContainer(command('load_command', kind, passwordEnv), passwordEnv, dump.stdout);
      assert.equal(load.status, 0, load.stderr.toString());
      assert.equal(query(`select group_concat(item order by id) from shop_${kind}.orders`).stdout.trim(), 'tea,bread');
      assert.equal(inContainer(command('data_command', kind, passwordEnv), passwordEnv).stdout.toString(), before);
    });
  }
});
