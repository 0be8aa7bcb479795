// Runs the real validators (validate-bundle.sh from the team's shared validators) over bundles on disk.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
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
  // Two things the shared nginx check cannot see, each checked again by the same script:
  // - it puts the compose service names in /etc/hosts but not a service's extra_hosts, which Compose
  //   writes there too: a bare-metal nginx reaches natives through host.docker.internal that way;
  // - Debian's nginx (bookworm, trixie and sid alike) has no ACME module, so with a domain the
  //   configuration is checked without it (acmeStripped says what is left out).
  const rechecks = failures.filter((f) => /^FAIL (nginx\/\S+) nginx-t\b/.test(f)
    && (/host\.docker\.internal/.test(f) || loadsAcmeModule(dir)));
  for (const failure of rechecks) {
    const file = /^FAIL (\S+)/.exec(failure)![1];
    const compose = fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8');
    if (/host\.docker\.internal/.test(failure) && !compose.includes('host.docker.internal:host-gateway')) continue;
    const staged = loadsAcmeModule(dir) ? acmeStripped(dir) : dir;
    const facts = JSON.parse((await run(['node', path.join(VALIDATORS_DIR, 'lib', 'helpers.mjs'), 'facts', path.join(staged, 'docker-compose.yml')])).stdout);
    if (compose.includes('host.docker.internal:host-gateway')) facts.hosts = [...facts.hosts, 'host.docker.internal'];
    const again = await run(['bash', path.join(VALIDATORS_DIR, 'lib', 'nginx-test.sh'), path.join(staged, file), JSON.stringify(facts)]);
    output += `\nnginx -t again${staged === dir ? ' with extra_hosts host.docker.internal' : ` ${ACME_STRIPPED_NOTE}`}: ${again.ok ? 'PASS' : `FAIL ${again.stdout}${again.stderr}`}`;
    if (staged !== dir) fs.rmSync(staged, { recursive: true, force: true });
    if (again.ok) {
      failures = failures.filter((f) => f !== failure);
      passed += 1;
    }
  }
  return { ok: failures.length === 0 && (res.ok || rechecks.length > 0), passed, failures, output };
}

/** What the nginx check of a bundle with a domain leaves out, said wherever that check reports. */
export const ACME_STRIPPED_NOTE = 'without the ACME module (Debian packages none): load_module, the acme_issuer include and '
  + 'acme_certificate removed, $acme_certificate/$acme_certificate_key replaced by a self-signed test certificate, '
  + 'ssl_certificate_cache (nginx 1.27.4+, Debian has 1.22) removed; the ACME directives themselves are not parsed';

export function loadsAcmeModule(bundleDir: string): boolean {
  const main = path.join(bundleDir, 'nginx', 'nginx.conf');
  return fs.existsSync(main) && fs.readFileSync(main, 'utf8').includes('ngx_http_acme_module');
}

/**
 * A copy of the bundle's compose file and nginx folder with everything only the ACME module (or a newer
 * nginx than Debian's) understands taken out, and a throwaway certificate where the module's would be.
 */
export function acmeStripped(bundleDir: string): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-nginx-acme-'));
  fs.copyFileSync(path.join(bundleDir, 'docker-compose.yml'), path.join(out, 'docker-compose.yml'));
  fs.cpSync(path.join(bundleDir, 'nginx'), path.join(out, 'nginx'), { recursive: true });
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=test',
    '-keyout', path.join(out, 'nginx', 'test.key'), '-out', path.join(out, 'nginx', 'test.crt')], { stdio: 'ignore' });
  for (const file of fs.readdirSync(path.join(out, 'nginx')).filter((f) => f.endsWith('.conf'))) {
    const p = path.join(out, 'nginx', file);
    const text = fs.readFileSync(p, 'utf8')
      .replace(/^\s*load_module \S*ngx_http_acme_module\.so;\n/m, '')
      .replace(/^\s*include \/etc\/nginx\/acme\.conf;\n/m, '')
      .replace(/^\s*acme_certificate [^;]*;\n/gm, '')
      .replace(/^\s*ssl_certificate_cache [^;]*;\n/gm, '')
      .replaceAll('$acme_certificate_key', '/etc/nginx/conf.d/test.key')
      .replaceAll('$acme_certificate', '/etc/nginx/conf.d/test.crt');
    fs.writeFileSync(p, text);
  }
  return out;
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
