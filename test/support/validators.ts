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

export function validateBundleDir(dir: string): Promise<ValidatorRun> {
  return new Promise((resolve) => {
    execFile('bash', [path.join(VALIDATORS_DIR, 'validate-bundle.sh'), dir], { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const lines = stdout.split('\n');
      resolve({
        ok: !err,
        passed: lines.filter((l) => l.startsWith('PASS ')).length,
        failures: lines.filter((l) => l.startsWith('FAIL ')),
        output,
      });
    });
  });
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
