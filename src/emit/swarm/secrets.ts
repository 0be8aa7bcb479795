// How each secret of a Swarm service reaches its container (docs/decisions.md "Swarm secrets"). Swarm hands a
// secret to a container only as a file under /run/secrets; the programs read theirs from variables. So each
// variable whose value holds a secret .env value takes the first way that works:
//   file    the program reads it from a file itself: the manifest's `fileVariable` (cited from upstream) points at
//           the secret's file, and the value is in no service definition;
//   loaded  the service runs a shell command of ours (a database setup job, a framework's start command): a line put
//           before that command reads the files into the variables, then runs the command unchanged;
//   value   neither: the value stays in the service definition, as under Compose, and the README names it.
// A variable the health check or the backup reads inside the container (`docker exec` gets the container's
// environment, not the command's) stays a value, and so does a `file` variable the service's own command expands.
import type { ContainerPlugin, ServicePlugin } from '../../catalogue/types.js';
import type { StackMember, StackModel } from '../../model/model.js';
import { envKey, frameworkCredentials } from '../../model/model.js';
import { containerEnvironment, setupEnvironment, type ContainerVariable } from '../container-env.js';
import { composeLiteral, shellQuote } from '../escape.js';

/** Where a secret's file is mounted: Swarm's default folder, the file named after the .env key. */
export const SECRETS_DIR = '/run/secrets';

/** The variable scripts/lib.sh (swarm_secrets) sets to the Swarm secret holding a .env key's value. */
export function secretNameVariable(key: string): string {
  return `STACK_SECRET_${key}`;
}

export interface SecretPlan {
  /** where the wrapper line goes (the part of the definition holding our shell command), if anywhere */
  wrap: 'entrypoint' | 'command' | null;
  /** .env keys mounted as files, each once */
  mounts: string[];
  /** variables replaced by the program's own file variable */
  files: { name: string; fileVariable: string; key: string }[];
  /** variables the wrapper line sets before the command */
  loaded: ContainerVariable[];
  /** variables left holding a secret value, and why */
  values: { name: string; why: string }[];
}

/** The .env keys that hold secrets: generated ones, database passwords, credentials and model provider keys. */
export function sensitiveKeys(model: StackModel): Set<string> {
  const keys = new Set(model.env.filter((v) => v.secret).map((v) => v.key));
  for (const d of model.databases) keys.add(d.passwordVariable);
  for (const c of frameworkCredentials(model)) keys.add(c.key);
  for (const m of model.members) if (m.plugin.kind === 'framework') for (const k of m.plugin.manifest.firstRun.keys) keys.add(k);
  return keys;
}

const SHELLS = new Set(['sh', '/bin/sh', 'bash', '/bin/bash']);

/** The part of a service definition a wrapper goes in front of: a shell command line of ours, or none. */
export function wrappable(def: { entrypoint?: unknown; command?: unknown }): 'entrypoint' | 'command' | null {
  const first = (v: unknown) => (Array.isArray(v) && typeof v[0] === 'string' ? v[0] : null);
  if (def.entrypoint !== undefined) return SHELLS.has(first(def.entrypoint) ?? '') ? 'entrypoint' : null;
  return SHELLS.has(first(def.command) ?? '') ? 'command' : null;
}

/** Whether a character code is a word character ([A-Za-z0-9_]), as a regular expression's \b sees it. */
function isWordCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

/**
 * Whether Compose-escaped shell text expands the variable ($$NAME, $${NAME...}, the name not going on). A
 * search rather than a regular expression made per variable and call; names are word characters (envName).
 */
export function expands(text: string, name: string): boolean {
  for (let at = text.indexOf('$$'); at !== -1; at = text.indexOf('$$', at + 1)) {
    const start = text.charCodeAt(at + 2) === 123 /* { */ ? at + 3 : at + 2;
    if (text.startsWith(name, start) && !isWordCode(text.charCodeAt(start + name.length))) return true;
  }
  return false;
}

function texts(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(texts).join('\n');
  if (v && typeof v === 'object') return Object.values(v).map(texts).join('\n');
  return '';
}

/** The plan for one service of the stack file: a container member or a database server's setup job. */
export function secretPlan(model: StackModel, id: string, def: Record<string, unknown>, sensitive: ReadonlySet<string>, setupOf?: ServicePlugin): SecretPlan {
  const member = model.members.find((m) => m.plugin.id === id && m.placement === 'container') as StackMember | undefined;
  const env = setupOf ? setupEnvironment(model, setupOf) : member ? containerEnvironment(model, member) : [];
  const plugin: ContainerPlugin | undefined = setupOf ? undefined : member?.plugin;
  const wrap = wrappable(def);
  const probeText = texts(def.healthcheck);
  const commandText = texts(def.entrypoint) + '\n' + texts(def.command);
  const backupVars = plugin?.kind === 'service' ? [plugin.manifest.backup?.userEnv, plugin.manifest.backup?.passwordEnv] : [];
  const plan: SecretPlan = { wrap, mounts: [], files: [], loaded: [], values: [] };
  const mount = (key: string) => {
    if (!plan.mounts.includes(key)) plan.mounts.push(key);
  };
  for (const v of env) {
    const secretKeys = v.parts.flatMap((p) => ('variable' in p && sensitive.has(p.variable) ? [p.variable] : []));
    if (!secretKeys.length) continue;
    const inContainer = expands(probeText, v.name) || backupVars.includes(v.name);
    const single = v.parts.length === 1 && 'variable' in v.parts[0] ? v.parts[0].variable : null;
    const spec = plugin?.manifest.environment?.find((e) => e.name === v.name && envKey(plugin.id, e) === single);
    if (!inContainer && single && spec?.fileVariable && !expands(commandText, v.name)) {
      plan.files.push({ name: v.name, fileVariable: spec.fileVariable, key: single });
      mount(single);
    } else if (!inContainer && wrap && v.parts.every((p) => 'text' in p || sensitive.has(p.variable))) {
      plan.loaded.push(v);
      secretKeys.forEach(mount);
    } else {
      plan.values.push({
        name: v.name,
        why: inContainer ? (backupVars.includes(v.name) ? 'the backup reads it inside the container' : 'the health check reads it')
          : !wrap ? 'no file form of it is known for the program' : 'its value mixes a secret with a setting',
      });
    }
  }
  return plan;
}

/**
 * The shell text that sets the loaded variables from their files, then runs the original command ("$@"), with
 * `$` doubled for the stack file's interpolation. A value that may be empty (an optional key) is stored as one
 * newline, which the command substitution removes.
 */
export function wrapperScript(loaded: readonly ContainerVariable[]): string {
  const lines = loaded.map((v) => {
    const value = v.parts.map((p) => ('text' in p ? composeLiteral(shellQuote(p.text)) : `"$$(cat ${SECRETS_DIR}/${p.variable})"`)).join('');
    return `${v.name}=${value}; export ${v.name}`;
  });
  return [...lines, 'exec "$$@"'].join('\n');
}
