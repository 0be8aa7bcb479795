// A private MariaDB server for tests (Debian's, installed by `npm run setup:test-tools`): a fresh data
// folder, TCP on the given port, and a root account with a password reachable over TCP and the socket,
// as the stack's MySQL/MariaDB servers have.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface MariaDb { dir: string; sock: string; server: ChildProcess; stop: () => void }

export async function startMariaDb(port: number, rootPassword: string, prefix: string): Promise<MariaDb> {
  assert.ok(fs.existsSync('/usr/sbin/mariadbd'), 'MariaDB is missing: run npm run setup:test-tools');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const data = path.join(dir, 'data');
  const sock = path.join(dir, 'sock');
  const user = asRoot ? ['--user=mysql'] : [];
  if (asRoot) spawnSync('chown', ['-R', 'mysql:', dir]);
  fs.chmodSync(dir, 0o755);
  const init = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, ...user, '--auth-root-authentication-method=normal', '--skip-test-db'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(init.status, 0, init.stderr + init.stdout);
  const server = spawn('/usr/sbin/mariadbd', ['--no-defaults', `--datadir=${data}`, ...user, `--port=${port}`, '--bind-address=127.0.0.1', `--socket=${sock}`, `--pid-file=${path.join(dir, 'pid')}`, '--skip-log-bin'], { stdio: ['ignore', 'ignore', 'pipe'] });
  // the server's own words, for when it stops before its socket appears (a port in use, a bad data folder)
  let serverLog = '';
  server.stderr!.on('data', (chunk: Buffer) => { serverLog = (serverLog + chunk.toString()).slice(-4000); });
  // up to two minutes: on a loaded two-core machine a first start has taken over 30 s
  for (let i = 0; i < 1200 && !fs.existsSync(sock) && server.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(fs.existsSync(sock), `MariaDB did not start (exit ${server.exitCode}): ${serverLog}`);
  const setRoot = spawnSync('mysql', ['--no-defaults', `--socket=${sock}`, '-uroot', '-e',
    `ALTER USER 'root'@'localhost' IDENTIFIED BY '${rootPassword}'; CREATE USER 'root'@'%' IDENTIFIED BY '${rootPassword}'; GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;`], { encoding: 'utf8' });
  assert.equal(setRoot.status, 0, setRoot.stderr);
  return {
    dir, sock, server,
    stop: () => {
      server.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
