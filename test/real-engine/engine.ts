// The Docker engine the real-engine tier runs stacks on: found, or started when this process may start it
// (root, with Debian's dockerd installed), and Compose v2 as the CLI plugin. Where no engine can be had the
// tier says why; in CI (CI=true) that is a failure, never a silent skip.
import { spawn, execFile } from 'node:child_process';
import { openSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CommandResult { code: number; stdout: string; stderr: string }

/** Runs a command to its end (no shell), never throwing for a non-zero exit. */
export async function command(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.on('error', reject);
    // a program that exits without reading its input (a failed docker build) closes the pipe: its exit status and
    // output say why, not the EPIPE of writing to it
    child.stdin.on('error', () => undefined);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export async function docker(args: string[], options: { cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<CommandResult> {
  return command('docker', args, options);
}

/** docker, or a thrown error carrying its output. */
export async function dockerOk(args: string[], options: { cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<string> {
  const result = await docker(args, options);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

async function engineAnswers(): Promise<boolean> {
  try {
    await run('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

async function startDockerd(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'no Docker engine answers, and only root may start dockerd here';
  const dockerd = await command('sh', ['-c', 'command -v dockerd']);
  if (dockerd.code !== 0) return 'no Docker engine answers and dockerd is not installed (npm run setup:test-tools installs docker.io)';
  const log = path.join(os.tmpdir(), 'stackwright-dockerd.log');
  const child = spawn(dockerd.stdout.trim(), [], { detached: true, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] });
  child.unref();
  for (let i = 0; i < 60; i++) {
    if (await engineAnswers()) return undefined;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return `dockerd did not answer within 60 s (its log: ${log})`;
}

/** Why the tier cannot run here, or undefined once the engine and Compose v2 answer. */
export async function engineProblem(): Promise<string | undefined> {
  if (!(await engineAnswers())) {
    const problem = await startDockerd();
    if (problem) return problem;
  }
  const compose = await docker(['compose', 'version', '--short']);
  if (compose.code !== 0 || !/^v?2\./.test(compose.stdout.trim())) {
    return `'docker compose' is not Compose v2 (${(compose.stdout + compose.stderr).trim()}); npm run setup:test-tools installs it as a CLI plugin`;
  }
  return undefined;
}

/** For a test file's `before`: the engine and Compose v2 answer, or the file fails saying why (never a skip). */
export async function requireEngine(): Promise<void> {
  const problem = await engineProblem();
  if (problem) throw new Error(`the real-engine tier cannot run: ${problem}`);
}

/**
 * The default bridge's gateway address (what containers reach as host-gateway). A fresh dockerd may leave
 * the Gateway field of the network's IPAM config empty (it shows only the subnet), and while no container is
 * attached the bridge interface has no carrier, so Node does not list its address; then the subnet's first
 * host address is taken, which is the address dockerd gives the bridge when no gateway is configured.
 */
export async function bridgeGateway(): Promise<string> {
  const inspect = JSON.parse(await dockerOk(['network', 'inspect', 'bridge', '--format', '{{json .}}'])) as { IPAM: { Config: { Gateway?: string; Subnet?: string }[] }; Options?: Record<string, string> };
  const configured = inspect.IPAM.Config.map((c) => c.Gateway).find(Boolean);
  if (configured) return configured;
  const name = inspect.Options?.['com.docker.network.bridge.name'] ?? 'docker0';
  const listed = os.networkInterfaces()[name]?.find((a) => a.family === 'IPv4')?.address;
  if (listed) return listed;
  const subnet = inspect.IPAM.Config.map((c) => c.Subnet).find((s) => s && /^\d+\.\d+\.\d+\.\d+\/\d+$/.test(s));
  if (!subnet) throw new Error(`the default bridge has no gateway, no IPv4 subnet in its IPAM config and no address on ${name}`);
  const octets = subnet.split('/')[0].split('.').map(Number);
  return [...octets.slice(0, 3), octets[3] + 1].join('.');
}
