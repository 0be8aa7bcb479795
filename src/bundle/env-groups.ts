// The stack's .env variables as .env.example shows them, one group per plugin (and one for the stack), with
// the lists the scripts and the README take of them, in one pass over the variables.
import type { ContainerPlugin } from '../catalogue/types.js';
import { KeptSlots, perObject } from '../memo.js';
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
  const groups = new Map<string, OpenGroup>();
  const secrets: Readonly<ReturnType<typeof secretOf>>[] = [];
  const required: string[] = [];
  const optionalInputs: string[] = [];
  let group: OpenGroup | undefined;
  // an indexed loop: this runs once per variable of the stack (over a thousand), and until the optimizing
  // tier takes over a for-of allocates at every step
  for (let i = 0; i < model.env.length; i++) {
    const v = model.env[i];
    // a plugin's variables mostly come one after another: the group of the last is looked up again only on a change
    if (group === undefined || group.key !== v.group) group = groups.get(v.group);
    if (!group) {
      const plugin = model.plugins.get(v.group);
      groups.set(v.group, (group = { key: v.group, title: v.group === '' ? STACK_TITLE : plugin ? titleOf(plugin) : `${v.group}: ${v.group}`, plugin, vars: [], kept: true }));
    }
    const frozen = Object.isFrozen(v);
    if (frozen) group.vars.push(v);
    else if (group.plugin) group.vars.push(keptVariable(v, group.plugin, leftOut));
    else {
      group.vars.push(v);
      group.kept = false;
    }
    if (v.secret) secrets.push(frozen ? keptSecret(v) : secretOf(v));
    else if (v.example === '') (v.required ? required : optionalInputs).push(v.key);
  }
  const envGroups: EnvGroup[] = [];
  for (const open of groups.values()) envGroups.push(open.kept ? keptGroup(open.title, open.vars) : open);
  return { envGroups, secrets, required, optionalInputs };
}

interface OpenGroup {
  /** the variables' group (a plugin id, or '' for the stack's) */
  key: string;
  title: string;
  /** the plugin whose group it is (none for the stack's) */
  plugin: ContainerPlugin | undefined;
  vars: EnvVar[];
  /** whether every variable is a frozen one (the group can be kept) */
  kept: boolean;
}

const STACK_TITLE = 'Stack-wide settings and model provider keys';
const titleOf = perObject((plugin: ContainerPlugin) => `${plugin.id}: ${plugin.manifest.name}`);

/**
 * Groups by their first variable. A variable the model hands out frozen (build-model.ts) is the same object in
 * every stack that has it, so a group whose variables are all such objects, in the same order under the same
 * title, is the group of an earlier stack, and that object is given back: the text .env.example writes of it is
 * kept by it (bundle-files.ts, fragments). Any other group is new each time.
 */
const groupsByFirst = new WeakMap<EnvVar, EnvGroup>();

function keptGroup(title: string, vars: EnvVar[]): EnvGroup {
  const first = vars[0];
  const kept = groupsByFirst.get(first);
  if (kept && kept.title === title && sameItems(kept.vars, vars)) return kept;
  const made = Object.freeze({ title, vars: Object.freeze(vars) });
  groupsByFirst.set(first, made);
  return made;
}

/** A plugin's variable the stack made (its example a public URL), frozen and given back while the same (memo.ts KeptSlots). */
function keptVariable(v: EnvVar, plugin: ContainerPlugin, leftOut: (text: string) => string): EnvVar {
  const example = leftOut(v.example);
  const last = madeVariables.get(plugin, v.key);
  return last && last.example === example && last.description === v.description && last.required === v.required && last.secret === v.secret
    ? last : madeVariables.keep(plugin, v.key, { ...v, example });
}
const madeVariables = new KeptSlots<ContainerPlugin, EnvVar>();

/** A secret scripts/lib.sh fills in on first start (its fragment is kept by this object where the variable is frozen). */
function secretOf(v: EnvVar) {
  return { key: v.key, length: v.secret!.length, charset: v.secret!.charset, prefix: v.secret!.prefix };
}
const keptSecret = perObject((v: EnvVar) => Object.freeze(secretOf(v)));

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
