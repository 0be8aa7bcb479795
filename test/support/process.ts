// The service as a real process (`src/main.ts` through tsx, as `npm run dev` runs it) on a free port.
// Its log is JSON lines (stdout is a pipe): `records()` are the parsed lines, `output()` their messages
// one a line, so tests match the words an operator reads and check the fields where they matter.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config.js';
import { KEY } from './keys.js';

export type LogRecord = Record<string, unknown> & { level: string; time: string; msg: string };

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  /** the log's messages so far, one a line (with any line that is not JSON as it came) */
  output: () => string;
  /** every log line so far, parsed */
  records: () => LogRecord[];
  /** stdout and stderr as they came */
  raw: () => string;
  url: string;
}

/** A log line as its record; throws (failing the test) on a line that is not a JSON object with time, level and msg. */
export function parseLogLine(line: string): LogRecord {
  const record = JSON.parse(line) as LogRecord;
  if (typeof record !== 'object' || record === null || typeof record.time !== 'string' || typeof record.level !== 'string' || typeof record.msg !== 'string') {
    throw new Error(`not a log record: ${line}`);
  }
  return record;
}

/** The messages of a process's JSON-lines log, one a line (what tests match against). */
export function logText(raw: string): string {
  return raw.split('\n').filter(Boolean).map((line) => {
    try {
      return parseLogLine(line).msg;
    } catch {
      return line;
    }
  }).join('\n');
}

/**
 * Starts the server with STACK_API_KEY set to the test KEY (env may override it, or unset it with '');
 * resolves once it listens (PORT 0: the port its listening record names). `openFiles` sets its soft and
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
  let raw = '';
  let text = '';
  const records: LogRecord[] = [];
  const take = (line: string) => {
    let record: LogRecord | undefined;
    try {
      record = parseLogLine(line);
    } catch { /* kept as it came */ }
    if (record) records.push(record);
    text += `${record ? record.msg : line}\n`;
  };
  return new Promise((resolve, reject) => {
    // each stream keeps its own unfinished line, so a line is never cut by the other stream's bytes
    const reader = () => {
      let pending = '';
      return (chunk: Buffer) => {
        raw += chunk.toString();
        const lines = (pending + chunk.toString()).split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (line) take(line);
        const listening = records.find((r) => r.event === 'listening');
        if (listening) resolve({ child, port: Number(listening.port), output: () => text, records: () => records, raw: () => raw, url: `http://127.0.0.1:${listening.port}` });
      };
    };
    child.stdout!.on('data', reader());
    child.stderr!.on('data', reader());
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${raw}`)));
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

/** A TCP port free on the loopback address just now. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
