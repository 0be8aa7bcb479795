// Runs the real validators (validate-bundle.sh from the team's shared validators) over bundles on disk.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config.js';

export const VALIDATORS_DIR = path.resolve(process.env.STACK_VALIDATORS_DIR ?? path.join(REPO_ROOT, '..', 'shared', 'validators'));

export interface ValidatorRun { ok: boolean; passed: number; failures: string[]; output: string }

export function assertValidatorsInstalled(): void {
  const script = path.join(VALIDATORS_DIR, 'validate-bundle.sh');
  if (!fs.existsSync(script)) {
    throw new Error(`the bundle validators are missing (${script}); run npm run setup:test-tools or set STACK_VALIDATORS_DIR`);
  }
}

function run(args: string[]): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(args[0], args.slice(1), { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr }));
  });
}

export async function validateBundleDir(dir: string): Promise<ValidatorRun> {
  const res = await run(['bash', path.join(VALIDATORS_DIR, 'validate-bundle.sh'), dir]);
  const lines = res.stdout.split('\n');
  let failures = lines.filter((l) => l.startsWith('FAIL '));
  let passed = lines.filter((l) => l.startsWith('PASS ')).length;
  let output = `${res.stdout}${res.stderr}`;
  // The shared nginx check puts the compose service names in /etc/hosts but not a service's
  // extra_hosts, which Compose writes there too: a bare-metal nginx reaches natives through
  // host.docker.internal that way. Such a failure is checked again by the same script with that name.
  const nginx = failures.filter((f) => /^FAIL (nginx\/\S+) nginx-t\b/.test(f) && /host\.docker\.internal/.test(f));
  for (const failure of nginx) {
    const file = /^FAIL (\S+)/.exec(failure)![1];
    const facts = JSON.parse((await run(['node', path.join(VALIDATORS_DIR, 'lib', 'helpers.mjs'), 'facts', path.join(dir, 'docker-compose.yml')])).stdout);
    const compose = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    if (!compose.includes('host.docker.internal:host-gateway')) continue;
    facts.hosts = [...facts.hosts, 'host.docker.internal'];
    const again = await run(['bash', path.join(VALIDATORS_DIR, 'lib', 'nginx-test.sh'), path.join(dir, file), JSON.stringify(facts)]);
    output += `\nnginx -t again with extra_hosts host.docker.internal: ${again.ok ? 'PASS' : `FAIL ${again.stdout}${again.stderr}`}`;
    if (again.ok) {
      failures = failures.filter((f) => f !== failure);
      passed += 1;
    }
  }
  return { ok: failures.length === 0 && (res.ok || nginx.length > 0), passed, failures, output };
}

/** Runs `work` over `items` with at most `limit` at once, keeping the order of results. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
