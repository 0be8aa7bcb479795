// A private PostgreSQL server for tests (Debian's, installed by `npm run setup:test-tools`): a fresh
// cluster with a password-protected superuser, TCP on the given port, as the stack's PostgreSQL servers
// have. It runs from a private copy of the server binary, so it reads extensions from a folder of its own:
// extensions Debian does not package (pgvector, VectorChord) are stubbed there, never in the system's
// folder other sessions share.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * An extension stub: a control file and an empty install script of our own under the upstream name,
 * declaring what the upstream control file declares that CREATE EXTENSION acts on (requires, superuser).
 * It proves that the setup script creates the extension (and with CASCADE what it requires) in each
 * database as the superuser; it proves nothing about the extension itself.
 */
export interface ExtensionStub { requires?: string[]; superuser: boolean; source: string }

export const EXTENSION_STUBS: Record<string, ExtensionStub> = {
  // pgvector@v0.8.6 vector.control:1-4: no requires, no superuser or trusted line (PostgreSQL's defaults: superuser, not trusted)
  vector: { superuser: true, source: 'pgvector/pgvector@v0.8.6 vector.control:1-4' },
  // tensorchord/VectorChord@1.1.1 vchord.control:5-6: superuser = true, requires = 'vector'
  vchord: { requires: ['vector'], superuser: true, source: 'tensorchord/VectorChord@1.1.1 vchord.control:5-6' },
};

export interface Postgres {
  port: number;
  dir: string;
  /** the extensions this server can create: Debian's and the stubs */
  available: (extension: string) => boolean;
  psql: (user: string, password: string, database: string, sql: string) => SpawnSyncReturns<string>;
  stop: () => void;
}

const asRoot = process.getuid?.() === 0;

export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  const version = fs.existsSync(root) ? fs.readdirSync(root).sort().at(-1) : undefined;
  return version ? path.join(root, version, 'bin') : undefined;
}

/** Runs a server binary; as root through the postgres account, which the server insists on. */
function server(bin: string, args: string[]): SpawnSyncReturns<string> {
  return asRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8', timeout: 60_000 })
    : spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000 });
}

export function startPostgres(port: number, superuser: string, password: string, prefix: string): Postgres {
  const binDir = postgresBinDir();
  assert.ok(binDir && fs.existsSync(path.join(binDir, 'initdb')), 'PostgreSQL server binaries are missing: run npm run setup:test-tools');
  const version = path.basename(path.dirname(binDir));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  // the server finds share/ and lib/ relative to its own binary (a relocatable install): a copy of the
  // binary under <dir>/install/lib/postgresql/<v>/bin reads <dir>/install/share/postgresql/<v>
  const install = path.join(dir, 'install');
  const privateBin = path.join(install, 'lib', 'postgresql', version, 'bin');
  const share = path.join(install, 'share', 'postgresql', version);
  const systemShare = path.join('/usr/share/postgresql', version);
  fs.mkdirSync(privateBin, { recursive: true });
  fs.copyFileSync(path.join(binDir, 'postgres'), path.join(privateBin, 'postgres'));
  fs.chmodSync(path.join(privateBin, 'postgres'), 0o755);
  fs.symlinkSync(path.join(path.dirname(binDir), 'lib'), path.join(install, 'lib', 'postgresql', version, 'lib'));
  fs.mkdirSync(path.join(share, 'extension'), { recursive: true });
  for (const name of fs.readdirSync(systemShare)) if (name !== 'extension') fs.symlinkSync(path.join(systemShare, name), path.join(share, name));
  const systemExtensions = path.join(systemShare, 'extension');
  for (const name of fs.readdirSync(systemExtensions)) fs.symlinkSync(path.join(systemExtensions, name), path.join(share, 'extension', name));
  for (const [name, stub] of Object.entries(EXTENSION_STUBS)) {
    if (fs.existsSync(path.join(share, 'extension', `${name}.control`))) continue;
    fs.writeFileSync(path.join(share, 'extension', `${name}.control`), [
      `comment = 'Stackwright test stub named ${name} (creates nothing; as ${stub.source})'`,
      "default_version = '0.0'",
      'relocatable = true',
      `superuser = ${stub.superuser}`,
      ...(stub.requires ? [`requires = '${stub.requires.join(', ')}'`] : []),
      '',
    ].join('\n'));
    fs.writeFileSync(path.join(share, 'extension', `${name}--0.0.sql`), `-- Stackwright test stub of ${name}: creates nothing\n`);
  }

  const data = path.join(dir, 'data');
  fs.writeFileSync(path.join(dir, 'pw'), password);
  if (asRoot) spawnSync('chown', ['-R', 'postgres:', dir]);
  fs.chmodSync(dir, 0o755);
  const init = server(path.join(binDir, 'initdb'), ['-D', data, '-U', superuser, `--pwfile=${path.join(dir, 'pw')}`, '--auth-host=scram-sha-256', '--auth-local=trust']);
  assert.equal(init.status, 0, init.stderr);
  const start = server(path.join(binDir, 'pg_ctl'), ['-D', data, '-w', '-l', path.join(dir, 'log'), '-p', path.join(privateBin, 'postgres'),
    '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  assert.equal(start.status, 0, start.stderr + start.stdout);
  return {
    port, dir,
    available: (extension) => fs.existsSync(path.join(share, 'extension', `${extension}.control`)),
    psql: (user, pw, database, sql) => spawnSync('psql', ['-X', '-tA', '-h', '127.0.0.1', '-p', String(port), '-U', user, '-d', database, '-c', sql], {
      encoding: 'utf8', env: { ...process.env, PGPASSWORD: pw, PGCONNECT_TIMEOUT: '5' }, timeout: 20_000,
    }),
    stop: () => {
      server(path.join(binDir, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
