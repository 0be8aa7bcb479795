// The stack's .env variables as .env.example shows them, one group per plugin (and one for the stack), with
// the lists the scripts and the README take of them, in one pass over the variables.
import type { ContainerPlugin } from '../catalogue/types.js';
import { keptItems } from '../memo.js';
import type { EnvVar, StackModel } from '../model/model.js';

/** A heading of .env.example and its variables; frozen, and the same object in every stack, where its variables are. */
export interface EnvGroup {
  readonly title: string;
  readonly vars: readonly EnvVar[];
}

/**
 * A plugin's variable whose example the stack made (a public URL) is kept as a frozen variable, with the
 * domain's placeholder there where the domain binds late (`leftOut`, late-binding.ts domainLeftOut).
 */
export function envGroups(model: StackModel, leftOut: (text: string) => string) {
  const groups = new Map<string, { title: string; vars: EnvVar[] }>();
  const secrets: { key: string; length: number; charset: string; prefix: string }[] = [];
  const required: string[] = [];
  const optionalInputs: string[] = [];
  for (const v of model.env) {
    let group = groups.get(v.group);
    if (!group) {
      const title = v.group === '' ? 'Stack-wide settings and model provider keys' : `${v.group}: ${model.plugins.get(v.group)?.manifest.name ?? v.group}`;
      groups.set(v.group, (group = { title, vars: [] }));
    }
    group.vars.push(Object.isFrozen(v) || v.group === '' ? v : keptVariable(v, model, leftOut));
    if (v.secret) secrets.push({ key: v.key, length: v.secret.length, charset: v.secret.charset, prefix: v.secret.prefix });
    else if (v.example === '') (v.required ? required : optionalInputs).push(v.key);
  }
  return { envGroups: [...groups.values()].map(keptGroup), secrets, required, optionalInputs };
}

/**
 * Groups by their first variable. A variable the model hands out frozen (build-model.ts) is the same object in
 * every stack that has it, so a group whose variables are all such objects, in the same order under the same
 * title, is the group of an earlier stack, and that object is given back: the text .env.example writes of it is
 * kept by it (bundle-files.ts, fragments). Any other group is new each time.
 */
const groupsByFirst = new WeakMap<EnvVar, EnvGroup>();

function keptGroup(group: { title: string; vars: EnvVar[] }): EnvGroup {
  const first = group.vars[0];
  if (!group.vars.every((v) => Object.isFrozen(v))) return group;
  const kept = groupsByFirst.get(first);
  if (kept && kept.title === group.title && sameItems(kept.vars, group.vars)) return kept;
  const made = Object.freeze({ title: group.title, vars: Object.freeze(group.vars) });
  groupsByFirst.set(first, made);
  return made;
}

/** A plugin's variable the stack made (its example a public URL), frozen and given back while the same (memo.ts keptItems). */
function keptVariable(v: EnvVar, model: StackModel, leftOut: (text: string) => string): EnvVar {
  const plugin = model.plugins.get(v.group);
  if (!plugin) return v;
  const example = leftOut(v.example);
  return madeVariable(plugin, v.key, [v.description, example, v.required, v.secret], () => ({ ...v, example }));
}
const madeVariable = keptItems<ContainerPlugin, EnvVar>();

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
