// The generated database setup script (config/postgresql/create-databases.sh) against a real PostgreSQL
// server: each consumer gets its role and database, a second run changes nothing, a password changed
// in .env takes effect, and a service added later gets its database. Then the same for every database
// server of the PostgreSQL family the catalogue holds (each on a fresh server of its own): every consumer
// reaches its own databases only, not another's nor the server's own (postgres, template1, the
// superuser's), and has the server's extensions. The server is Debian's PostgreSQL (installed by
// `npm run setup:test-tools`) on private ports; extensions Debian lacks are stubbed (test/support/postgres.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { consumersOf, databaseServers, FAMILIES_WITH_A_TEST_SERVER, stackOnServer } from '../support/database-servers.js';
import { EXTENSION_STUBS, startPostgres, type Postgres } from '../support/postgres.js';
import { shippedCatalogue } from '../support/server.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 50);
const PORT = 55432;
const SUPERUSER = 'stack';
const SUPERPASS = 'superuser-secret-1';

let pg: Postgres;
const psql = (user: string, password: string, database: string, sql: string) => pg.psql(user, password, database, sql);

/** The setup script of a stack, run the way the postgresql-setup container runs it. */
function runSetup(request: Parameters<Generator['generate']>[0], passwords: Record<string, string>, rewrite = (s: string) => s) {
  const script = generator.generate(request).files['config/postgresql/create-databases.sh'];
  assert.ok(script, 'the stack has a setup script');
  const file = path.join(pg.dir, `setup-${request.name}.sh`);
  fs.writeFileSync(file, rewrite(script));
  return spawnSync('sh', [file], {
    encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH, PGHOST: '127.0.0.1', PGPORT: String(PORT), POSTGRES_USER: SUPERUSER, POSTGRES_PASSWORD: SUPERPASS, POSTGRES_DB: 'postgres', ...passwords },
  });
}

describe('database setup against a real PostgreSQL', () => {
  before(() => {
    pg = startPostgres(PORT, SUPERUSER, SUPERPASS, 'stackwright-pg-');
  });

  after(() => pg?.stop());

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
    // pgvector is not packaged for Debian's PostgreSQL: the test server has a stub of its own named vector
    const res = runSetup({ name: 'pg4', services: ['n8n', 'langfuse', 'temporal'], primaryFramework: 'memu' }, passwords);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    const temporal = catalogueDb('temporal');
    for (const db of [temporal.name, ...temporal.additional]) {
      assert.equal(psql(temporal.user, 't-pass', db, 'select current_database()').stdout.trim(), db);
    }
    assert.equal(psql('memu', 'm-pass', 'memu', "select count(*) from pg_extension where extname = 'vector'").stdout.trim(), '1');
  });

  test('without the superuser password nothing is created', () => {
    const script = generator.generate({ name: 'pg5', services: ['n8n'] }).files['config/postgresql/create-databases.sh'];
    const file = path.join(pg.dir, 'nopw.sh');
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

describe('every database server of the PostgreSQL family, each against a fresh real PostgreSQL', () => {
  const servers = databaseServers(catalogue);

  test('every database server belongs to a family the tests run on a real server', () => {
    assert.ok(servers.length >= 3, `only ${servers.length} database servers found`);
    for (const s of servers) assert.ok(s.family && FAMILIES_WITH_A_TEST_SERVER.includes(s.family), `${s.id}: family ${s.family ?? '(none: a script of its own)'} has no test server`);
    for (const id of ['postgresql', 'vectorchord']) assert.equal(servers.find((s) => s.id === id)?.family, 'postgresql', id);
  });

  servers.filter((s) => s.family === 'postgresql').forEach((server, i) => {
    test(`${server.id}: consumers reach their own databases only, never the server's own, and have ${server.extensions.join(', ') || 'no server'} extensions`, () => {
      const port = PORT + 1 + i;
      const own = startPostgres(port, SUPERUSER, SUPERPASS, `stackwright-pg-${server.id}-`);
      try {
        // the superuser's database (POSTGRES_DB), as the image's entrypoint makes it on first start
        assert.equal(own.psql(SUPERUSER, SUPERPASS, 'postgres', 'create database stack').status, 0);
        const request = stackOnServer(catalogue, generator, server.id, `fam-${server.id}`);
        const script = generator.generate(request).files[`config/${server.id}/create-databases.sh`];
        assert.ok(script, `a stack with ${JSON.stringify(request)} has no setup script for ${server.id}`);
        const consumers = consumersOf(script);
        assert.ok(consumers.length >= 2, `${server.id}: ${consumers.length} consumer(s) in ${JSON.stringify(request)}; need two to check they are kept apart`);
        const required = (ext: string): string[] => [ext, ...(EXTENSION_STUBS[ext]?.requires ?? []).flatMap(required)];
        for (const ext of new Set([...server.extensions, ...consumers.flatMap((c) => c.extensions)])) {
          assert.ok(own.available(ext), `extension ${ext} is neither Debian's nor stubbed: add a stub to test/support/postgres.ts`);
        }
        const passwords = Object.fromEntries(consumers.map((c) => [c.passwordVariable, `${c.user}-pass-1`]));
        const file = path.join(own.dir, 'setup.sh');
        fs.writeFileSync(file, script);
        const run = () => spawnSync('sh', [file], {
          encoding: 'utf8', timeout: 120_000,
          env: { PATH: process.env.PATH, PGHOST: '127.0.0.1', PGPORT: String(port), POSTGRES_USER: SUPERUSER, POSTGRES_PASSWORD: SUPERPASS, POSTGRES_DB: 'stack', ...passwords },
        });
        const res = run();
        assert.equal(res.status, 0, res.stderr + res.stdout);

        consumers.forEach((c, k) => {
          const pw = passwords[c.passwordVariable];
          for (const db of c.databases) assert.equal(own.psql(c.user, pw, db, 'select current_user').stdout.trim(), c.user, `${c.user} connects to ${db}`);
          const other = consumers[(k + 1) % consumers.length];
          for (const db of ['postgres', 'template1', 'stack', other.databases[0]]) {
            const denied = own.psql(c.user, pw, db, 'select 1');
            assert.notEqual(denied.status, 0, `${server.id}: ${c.user} connects to ${db}`);
            assert.match(denied.stderr, /permission denied for database/, `${server.id}: ${c.user} -> ${db}`);
          }
          for (const db of c.databases) {
            const installed = own.psql(SUPERUSER, SUPERPASS, db, 'select extname from pg_extension').stdout.split('\n');
            for (const ext of [...server.extensions.flatMap(required), ...c.extensions]) assert.ok(installed.includes(ext), `${server.id}: ${ext} in ${db} (has ${installed.join(' ')})`);
          }
        });
        const again = run();
        assert.equal(again.status, 0, `a second run: ${again.stderr}`);
      } finally {
        own.stop();
      }
    });
  });
});
