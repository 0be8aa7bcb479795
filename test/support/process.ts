// The service as a real process (`src/main.ts` through tsx, as `npm run dev` runs it) on a free port.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config.js';
import { KEY } from './keys.js';

export interface ServerProcess { child: ChildProcess; port: number; output: () => string; url: string }

/**
 * Starts the server with STACK_API_KEY set to the test KEY (env may override it, or unset it with '');
 * resolves once it listens (PORT 0: the port it printed). `openFiles` sets its soft and
 * hard open-file limit (through util-linux's prlimit), as a small box or a container might; `user` runs it
 * as another user (a test running as root uses it to be a service account that cannot read root's files).
 */
export function spawnServer(env: Record<string, string> = {}, { openFiles, user }: { openFiles?: number; user?: { uid: number; gid: number } } = {}): Promise<ServerProcess> {
  const command = [process.execPath, '--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')];
  if (openFiles !== undefined) command.unshift('prlimit', `--nofile=${openFiles}:${openFiles}`, '--');
  const child = spawn(command[0], command.slice(1), {
    ...user,
    env: { ...process.env, PORT: '0', STACK_RATE_LIMIT_READ: '100000', STACK_API_KEY: KEY, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) resolve({ child, port: Number(m[1]), output: () => output, url: `http://127.0.0.1:${m[1]}` });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)));
  });
}

/** Resolves when the output so far, or later, matches `pattern` (the process's own log as the clock). */
export function waitForOutput(server: ServerProcess, pattern: RegExp, from = 0, giveUpMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    // a guard against a hung suite, not a timing assertion: the wait is far longer than any expected
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in the server's output after ${giveUpMs} ms:\n${server.output().slice(from)}`)), giveUpMs);
    const exited = () => reject(new Error(`server exited before printing ${pattern}:\n${server.output()}`));
    const check = () => {
      const text = server.output().slice(from);
      if (pattern.test(text)) {
        clearTimeout(timer);
        server.child.stdout!.off('data', check);
        server.child.stderr!.off('data', check);
        server.child.off('exit', exited);
        resolve(text);
      }
    };
    server.child.stdout!.on('data', check);
    server.child.stderr!.on('data', check);
    server.child.once('exit', exited);
    check();
  });
}

export async function stopServer(server: ServerProcess): Promise<number | null> {
  if (server.child.exitCode !== null) return server.child.exitCode;
  const exited = new Promise<number | null>((r) => server.child.once('exit', r));
  server.child.kill('SIGTERM');
  return exited;
}
