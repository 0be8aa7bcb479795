// Reading a Kubernetes bundle the way a cluster would: the static kubectl 1.35 (scripts/install-test-tools.sh puts
// it under the validators prefix) renders the Kustomize base, and $(VAR) references are expanded by the
// kubelet's rules. One place for the tests that read rendered objects (deploy tests and the engine tier).
import { execFile } from 'node:child_process';
import path from 'node:path';
import * as yaml from 'js-yaml';

export const KUBECTL = process.env.STACK_KUBECTL ?? path.join(process.env.VALIDATORS_PREFIX ?? '/tmp/validators', 'kubectl-v35', 'kubectl');

/** A program's stdout, or a rejection carrying its stderr. */
export function runFile(file: string, args: string[], cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 }, (e, stdout, stderr) => (e ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || e.message}`)) : resolve(stdout)));
  });
}

/** The objects `kubectl kustomize <dir>` renders, parsed. */
export async function kustomize<T = any>(dir: string): Promise<T[]> {
  return (yaml.loadAll(await runFile(KUBECTL, ['kustomize', dir])) as T[]).filter(Boolean);
}

/**
 * $(VAR) expanded from `defined`, $$ as $, anything else kept as written (a reference to an undefined variable
 * too): the kubelet's rules for env values, command, args and exec probes (kubernetes third_party/forked/golang/
 * expansion/expand.go).
 */
export function expand(value: string, defined: ReadonlyMap<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name?: string) => (whole === '$$' ? '$' : defined.has(name!) ? defined.get(name!)! : whole));
}
