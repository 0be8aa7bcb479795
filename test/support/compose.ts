// Docker Compose v2's own parser, without a Docker daemon: `config` reads and resolves a compose file.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Compose v2's own binary: the plugin when Docker has it, else the copy scripts/install-test-tools.sh fetched. */
export function composeV2(): string[] {
  try {
    if (/v?2\./.test(execFileSync('docker', ['compose', 'version', '--short'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))) return ['docker', 'compose'];
  } catch { /* no plugin */ }
  const fetched = process.env.STACK_COMPOSE_V2 ?? path.join(process.env.VALIDATORS_PREFIX ?? '/tmp/validators', 'compose-v2', 'docker-compose');
  if (!fs.existsSync(fetched)) throw new Error(`Docker Compose v2 is missing (${fetched}); run npm run setup:test-tools or set STACK_COMPOSE_V2`);
  return [fetched];
}

/** Runs a command with no Docker daemon reachable (compose's config never needs one). */
export function runWithoutDaemon(command: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command[0], command.slice(1), { cwd, env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent.sock', ...env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${command.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)));
  });
}
