// The generated database setup script (config/postgresql/create-databases.sh) against a real PostgreSQL
// server: each consumer gets its role and database, a second run changes nothing, a password changed
// in .env takes effect, and a service added later gets its database. The server is Debian's
// PostgreSQL (installed by `npm run setup:test-tools`), started on a private port for this file.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 50);
const PORT = 55432;
const SUPERUSER = 'stack';
const SUPERPASS = 'superuser-secret-1';

const binDir = (() => {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().at(-1) : undefined;
  return version ? path.join(root, version, 'bin') : undefined;
})();
const asRoot = process.getuid?.() === 0;

/** Runs a server binary; as root through the postgres account, which the server insists on. */
function server(args: string[]): SpawnSyncReturns<string> {
  const [cmd, ...rest] = args;
  const full = path.join(binDir!, cmd);
  return asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', full, ...rest], { encoding: 'utf8', timeout: 60_000 })
    : spawnSync(full, rest, { encoding: 'utf8', timeout: 60_000 });
}

function psql(user: string, password: string, database: string, sql: string): SpawnSyncReturns<string> {
  return spawnSync('psql', ['-X', '-tA', '-h', '127.0.0.1', '-p', String(PORT), '-U', user, '-d', database, '-c', sql], {
    encoding: 'utf8', env: { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000,
  });
}

/** The setup script of a stack, run the way the postgresql-setup container runs it. */
function runSetup(request: Parameters<Generator['generate']>[0], passwords: Record<string, string>, rewrite = (s: string) => s) {
  const script = generator.generate(request).files['config/postgresql/create-databases.sh'];
  assert.ok(script, 'the stack has a setup script');
  const file = path.join(dir, `setup-${request.name}.sh`);
  fs.writeFileSync(file, rewrite(script));
  return spawnSync('sh', [file], {
    encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH, PGHOST: '127.0.0.1', PGPORT: String(PORT), POSTGRES_USER: SUPERUSER, POSTGRES_PASSWORD: SUPERPASS, POSTGRES_DB: 'postgres', ...passwords },
  });
}

let dir: string;
let data: string;

describe('database setup against a real PostgreSQL', () => {
  before(() => {
    assert.ok(binDir && fs.existsSync(path.join(binDir, 'initdb')), 'PostgreSQL server binaries are missing: run npm run setup:test-tools');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-pg-'));
    data = path.join(dir, 'data');
    fs.writeFileSync(path.join(dir, 'pw'), SUPERPASS);
    if (asRoot) spawnSync('chown', ['-R', 'postgres:', dir]);
    fs.chmodSync(dir, 0o755);
    const init = server(['initdb', '-D', data, '-U', SUPERUSER, `--pwfile=${path.join(dir, 'pw')}`, '--auth-host=scram-sha-256', '--auth-local=trust']);
    assert.equal(init.status, 0, init.stderr);
    const start = server(['pg_ctl', '-D', data, '-w', '-l', path.join(dir, 'log'), '-o', `-p ${PORT} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
    assert.equal(start.status, 0, start.stderr + start.stdout);
  });

  after(() => {
    if (data) server(['pg_ctl', '-D', data, '-m', 'immediate', 'stop']);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const first = { N8N_DB_POSTGRESDB_PASSWORD: 'n8n-pass-1', LANGFUSE_DB_PASSWORD: 'langfuse-pass-1' };

  test('each consumer gets its own role and database, and reaches only its own', () => {
    const res = runSetup({ name: 'pg1', services: ['n8n', 'langfuse'] }, first);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    assert.equal(psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, 'n8n', 'select current_user').stdout.trim(), 'n8n');
    assert.equal(psql('langfuse', first.LANGFUSE_DB_PASSWORD, 'langfuse', 'select pg_catalog.pg_get_userbyid(datdba) from pg_database where datname = current_database()').stdout.trim(), 'langfuse');
    // owners of their own databases only: public is the database owner's (PostgreSQL 15 and later)
    assert.equal(psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, 'n8n', 'create table t (x int)').status, 0);
    assert.notEqual(psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, 'langfuse', 'create table t (x int)').status, 0, 'n8n cannot create tables in langfuse');
    assert.equal(psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, 'n8n', 'select rolsuper from pg_roles where rolname = current_user').stdout.trim(), 'f');
    // no connection at all to another consumer's database or to the server's own ones
    for (const other of ['langfuse', 'postgres', 'template1']) {
      const denied = psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, other, 'select 1');
      assert.notEqual(denied.status, 0, `n8n connects to ${other}`);
      assert.match(denied.stderr, /permission denied for database/);
    }
  });

  test('a second run changes nothing and succeeds', () => {
    const res = runSetup({ name: 'pg2', services: ['n8n', 'langfuse'] }, first);
    assert.equal(res.status, 0, res.stderr);
    assert.equal(psql('n8n', first.N8N_DB_POSTGRESDB_PASSWORD, 'n8n', 'select count(*) from t').stdout.trim(), '0', 'the data stays');
  });

  test('a password changed in .env takes effect on the next run', () => {
    const changed = { ...first, N8N_DB_POSTGRESDB_PASSWORD: 'n8n-pass-2' };
    assert.equal(runSetup({ name: 'pg3', services: ['n8n', 'langfuse'] }, changed).status, 0);
    assert.equal(psql('n8n', 'n8n-pass-2', 'n8n', 'select 1').stdout.trim(), '1');
    assert.notEqual(psql('n8n', 'n8n-pass-1', 'n8n', 'select 1').status, 0, 'the old password no longer works');
  });

  test('a service added to the stack later gets its databases and extensions on the next run', () => {
    const passwords = { ...first, N8N_DB_POSTGRESDB_PASSWORD: 'n8n-pass-2', TEMPORAL_DB_PASSWORD: 't-pass', MEMU_DB_PASSWORD: 'm-pass', MEMU_MEMU_API_KEY: 'k' };
    // pgvector is not packaged for Debian's PostgreSQL; pg_trgm (contrib) takes the same path through the script
    const res = runSetup({ name: "pg4", services: ["n8n", "langfuse", "temporal"], primaryFramework: "memu" }, passwords, (s) => s.replace(/^(ensure_database .*) vector$/gm, "$1 pg_trgm"));
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const temporal = catalogueDb('temporal');
    for (const db of [temporal.name, ...temporal.additional]) {
      assert.equal(psql(temporal.user, 't-pass', db, 'select current_database()').stdout.trim(), db);
    }
    assert.equal(psql('memu', 'm-pass', 'memu', "select count(*) from pg_extension where extname = 'pg_trgm'").stdout.trim(), '1');
  });

  test('without the superuser password nothing is created', () => {
    const script = generator.generate({ name: 'pg5', services: ['n8n'] }).files['config/postgresql/create-databases.sh'];
    const file = path.join(dir, 'nopw.sh');
    fs.writeFileSync(file, script);
    const res = spawnSync('sh', [file], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH, PGHOST: '127.0.0.1', PGPORT: String(PORT), POSTGRES_USER: SUPERUSER, POSTGRES_PASSWORD: 'wrong', POSTGRES_DB: 'postgres', N8N_DB_POSTGRESDB_PASSWORD: 'x' } });
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /password authentication failed/);
  });
});

function catalogueDb(id: string) {
  const db = shippedCatalogue().services.get(id)!.manifest.databases![0];
  const own = id.replace(/-/g, '_');
  return { name: db.name ?? own, user: db.user ?? own, additional: db.additional ?? [] };
}
