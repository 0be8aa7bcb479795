// The MySQL setup script (config/mysql/create-databases.sh) against a real server: Debian's MariaDB
// (installed by `npm run setup:test-tools`; the script uses only SQL MySQL 8.4 and MariaDB share),
// started on a private port for this file. Each consumer gets its user and database and reaches only
// its own, a second run changes nothing, a changed password takes effect, a wrong root password makes nothing.
// Then every database server of the MySQL family the catalogue holds, each on a fresh server of its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { consumersOf, databaseServers, stackOnServer } from '../support/database-servers.js';
import { startMariaDb, type MariaDb } from '../support/mariadb.js';
import { shippedCatalogue } from '../support/server.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 50);
const PORT = 53306;
const ROOTPASS = 'root-secret-1';

let dir: string;
let db: MariaDb | undefined;

function mysql(user: string, password: string, sql: string, database = '', port = PORT): { status: number | null; stdout: string; stderr: string } {
  const args = ['-h', '127.0.0.1', '-P', String(port), `-u${user}`, '--batch', '--skip-column-names', '-e', sql];
  if (database) args.push(database);
  return spawnSync('mysql', args, { encoding: 'utf8', env: { ...process.env, MYSQL_PWD: password }, timeout: 20_000 });
}

function runSetup(name: string, services: string[], env: Record<string, string>) {
  const script = generator.generate({ name, services }).files['config/mysql/create-databases.sh'];
  assert.ok(script, 'the stack has a MySQL setup script');
  const file = path.join(dir, `setup-${name}.sh`);
  fs.writeFileSync(file, script);
  return spawnSync('sh', [file], {
    encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH, MYSQL_HOST: '127.0.0.1', MYSQL_TCP_PORT: String(PORT), MYSQL_ROOT_PASSWORD: ROOTPASS, MYSQL_USER: 'stack', ...env },
  });
}

describe('database setup against a real MySQL-compatible server (MariaDB)', () => {
  before(async () => {
    db = await startMariaDb(PORT, ROOTPASS, 'stackwright-mysql-');
    dir = db.dir;
  });

  after(() => db?.stop());

  const first = { BOOKSTACK_DB_PASSWORD: 'bookstack-pass-1', MATOMO_MATOMO_DATABASE_PASSWORD: "mat'omo\\pass-1" };

  test('each consumer gets its own user and database, and reaches only its own', () => {
    const res = runSetup('my1', ['bookstack', 'matomo'], first);
    assert.equal(res.status, 0, res.stderr + res.stdout);
    assert.match(res.stdout, /database bookstack \(user bookstack\) ready/);
    assert.equal(mysql('bookstack', first.BOOKSTACK_DB_PASSWORD, 'CREATE TABLE t (x int); SELECT DATABASE();', 'bookstack').stdout.trim(), 'bookstack');
    assert.equal(mysql('matomo', first.MATOMO_MATOMO_DATABASE_PASSWORD, 'SELECT 1', 'matomo').stdout.trim(), '1', 'a password with a quote and a backslash works');
    assert.notEqual(mysql('bookstack', first.BOOKSTACK_DB_PASSWORD, 'SELECT 1', 'matomo').status, 0, 'bookstack cannot open matomo');
    assert.notEqual(mysql('bookstack', first.BOOKSTACK_DB_PASSWORD, 'CREATE DATABASE other').status, 0, 'no rights beyond its database');
  });

  test('a second run changes nothing; a password changed in .env takes effect', () => {
    assert.equal(runSetup('my2', ['bookstack', 'matomo'], first).status, 0);
    assert.equal(mysql('bookstack', first.BOOKSTACK_DB_PASSWORD, 'SELECT COUNT(*) FROM t', 'bookstack').stdout.trim(), '0', 'the data stays');
    assert.equal(runSetup('my3', ['bookstack', 'matomo'], { ...first, BOOKSTACK_DB_PASSWORD: 'bookstack-pass-2' }).status, 0);
    assert.equal(mysql('bookstack', 'bookstack-pass-2', 'SELECT 1', 'bookstack').stdout.trim(), '1');
    assert.notEqual(mysql('bookstack', first.BOOKSTACK_DB_PASSWORD, 'SELECT 1', 'bookstack').status, 0, 'the old password no longer works');
  });

  test('with a wrong root password nothing is created', () => {
    const res = runSetup('my4', ['bookstack'], { MYSQL_ROOT_PASSWORD: 'wrong', BOOKSTACK_DB_PASSWORD: 'x' });
    assert.notEqual(res.status, 0);
    assert.match(res.stderr, /Access denied/);
  });
});

describe('every database server of the MySQL family, each against a fresh MySQL-compatible server (MariaDB)', () => {
  const servers = databaseServers(catalogue).filter((s) => s.family === 'mysql');

  test('the catalogue has them', () => assert.ok(servers.some((s) => s.id === 'mysql'), 'mysql is of the MySQL family'));

  servers.forEach((server, i) => {
    test(`${server.id}: consumers reach their own databases only, never another's or the server's own`, async () => {
      const port = PORT + 1 + i;
      const own = await startMariaDb(port, ROOTPASS, `stackwright-mysql-${server.id}-`);
      try {
        const request = stackOnServer(catalogue, generator, server.id, `fam-${server.id}`);
        const script = generator.generate(request).files[`config/${server.id}/create-databases.sh`];
        assert.ok(script, `a stack with ${JSON.stringify(request)} has no setup script for ${server.id}`);
        const consumers = consumersOf(script);
        assert.ok(consumers.length >= 2, `${server.id}: ${consumers.length} consumer(s) in ${JSON.stringify(request)}; need two to check they are kept apart`);
        const passwords = Object.fromEntries(consumers.map((c) => [c.passwordVariable, `${c.user}'pass\\1`]));
        const file = path.join(own.dir, 'setup.sh');
        fs.writeFileSync(file, script);
        const run = () => spawnSync('sh', [file], {
          encoding: 'utf8', timeout: 120_000,
          env: { PATH: process.env.PATH, MYSQL_HOST: '127.0.0.1', MYSQL_TCP_PORT: String(port), MYSQL_ROOT_PASSWORD: ROOTPASS, MYSQL_USER: 'stack', ...passwords },
        });
        const res = run();
        assert.equal(res.status, 0, res.stderr + res.stdout);
        consumers.forEach((c, k) => {
          const pw = passwords[c.passwordVariable];
          for (const db of c.databases) assert.equal(mysql(c.user, pw, 'SELECT DATABASE()', db, port).stdout.trim(), db, `${c.user} opens ${db}`);
          const other = consumers[(k + 1) % consumers.length];
          for (const db of ['mysql', other.databases[0]]) {
            const denied = mysql(c.user, pw, 'SELECT 1', db, port);
            assert.notEqual(denied.status, 0, `${server.id}: ${c.user} opens ${db}`);
            assert.match(denied.stderr, /Access denied/, `${server.id}: ${c.user} -> ${db}`);
          }
          assert.notEqual(mysql(c.user, pw, 'CREATE DATABASE other_db', '', port).status, 0, `${c.user}: no rights beyond its databases`);
        });
        assert.equal(run().status, 0, 'a second run');
      } finally {
        own.stop();
      }
    });
  });
});
