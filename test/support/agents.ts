// The real agent CLIs from npm (installed by scripts/install-test-tools.sh into STACK_AGENT_CLIS) and the stub
// model server (test/stub-model/server.mjs) they are pointed at.
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { after, before } from 'node:test';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config.js';

export const AGENT_CLIS = path.resolve(process.env.STACK_AGENT_CLIS ?? '/tmp/agent-clis');

/**
 * The installed package's folder, after checking it is the version the catalogue pins (the npm spec
 * `<pinned>@<version>` in the framework's manifest; `pinned` is another package for a platform binary
 * that ships at its wrapper's version).
 */
export function agentPackage(pkg: string, frameworkId: string, pinned = pkg): string {
  const dir = path.join(AGENT_CLIS, 'node_modules', pkg);
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    throw new Error(`${pkg} is missing from ${AGENT_CLIS}: run npm run setup:test-tools (scripts/install-test-tools.sh) or set STACK_AGENT_CLIS`);
  }
  const manifest = fs.readFileSync(path.join(REPO_ROOT, 'plugins', 'frameworks', frameworkId, 'framework.yaml'), 'utf8');
  const pin = new RegExp(`${pinned.replace(/[/@.-]/g, '\\$&')}@(\\d[\\w.-]*)`).exec(manifest)?.[1];
  const installed = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  if (!pin || installed !== pin) throw new Error(`${pkg} ${installed} in ${AGENT_CLIS} is not the pinned ${pin ?? '(no pin found)'}: run scripts/install-test-tools.sh`);
  return dir;
}

export interface StubServer { url: string; child: ChildProcess; requests(): Promise<StubRequest[]>; stop(): Promise<void> }
export interface StubRequest { method: string; path: string; model: string | null; stream: boolean | null; key: boolean; credential: string | null; userText: string }

/** The stub model server on a free port; `env` may make it answer as another server (STUB_SERVER, STUB_API_KEY, STUB_MODELS). */
export function startStub(env: Record<string, string> = {}): Promise<StubServer> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'test', 'stub-model', 'server.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (d: Buffer) => {
      const url = d.toString().trim().split('\n')[0];
      resolve({
        url,
        child,
        requests: async () => (await fetch(`${url}/_stub/requests`)).json() as Promise<StubRequest[]>,
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls a URL until it answers `status` (a real process starting; no fixed sleeps). */
export async function waitForStatus(url: string, status: number, child: ChildProcess, log: () => string, giveUpMs = 240_000): Promise<void> {
  const deadline = Date.now() + giveUpMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before ${url} answered:\n${log()}`);
    try {
      if ((await fetch(url)).status === status) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`${url} did not answer ${status}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The body of a quoted heredoc `cat > <target> <<'<tag>'` in a generated script (a launcher a native installer leaves). */
export function heredoc(script: string, tag: string): string {
  const start = script.indexOf(`<<'${tag}'\n`);
  if (start < 0) throw new Error(`no ${tag} heredoc`);
  const body = script.slice(script.indexOf('\n', start) + 1);
  return body.slice(0, body.indexOf(`\n${tag}\n`) + 1);
}

/** Runs a command to its end, collecting its output. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: opts.env, cwd: opts.cwd, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => { stdout += d; });
    child.stderr!.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 300_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    if (opts.input !== undefined) {
      child.stdin!.on('error', () => { /* a child that exits without reading its input */ });
      child.stdin!.end(opts.input);
    }
  });
}

/**
 * For a test file: a scratch folder and a stub server that live as long as the file's tests (`stub()` is
 * valid inside tests, once `before` has run).
 */
export function stubForFile(name: string): { root: string; stub: () => StubServer } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `stackwright-${name}-`));
  let server: StubServer | undefined;
  before(async () => { server = await startStub(); });
  after(async () => {
    await server?.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  return { root, stub: () => server! };
}

/**
 * A scratch container root for Codex's generated start command: `<base>/root` as its home, and in `<base>/bin`
 * the real Codex CLI (`codex-real`, the npm package's entry on this Node) and an npm stand-in that reports it
 * installed.
 */
export function codexScratch(base: string, codexJs: string): { home: string; bin: string; codex: string } {
  const home = path.join(base, 'root');
  const bin = path.join(base, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const codex = path.join(bin, 'codex-real');
  fs.writeFileSync(codex, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(codexJs)} "$@"\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return { home, bin, codex };
}
