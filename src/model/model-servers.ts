// The stack's local model servers as its frameworks see them (issue 35). A framework lists the servers its
// start command can use in firstRun.localModels, in its order of preference; a service that is such a
// server says so in `modelServer` (the shared <PREFIX>_MODEL it serves, its API key). Ollama predates
// `modelServer`: frameworks name its models themselves (OLLAMA_MODEL). A framework in a container and a native
// one (bare metal) are wired alike: its start command or launcher reads the same variables.
import type { FrameworkPlugin, ServicePlugin } from '../catalogue/types.js';
import { envPrefix } from './env-names.js';
import type { StackMember, StackModel } from './model.js';
import { envKey } from './model.js';

/** A framework's variable naming a model server's setting: the .env key it reads (and its default, if any). */
export interface ModelServerVariable { name: string; variable: string; fallback?: string }

/** .env variable choosing the server when a stack holds several (empty: the framework's own order). */
export const LOCAL_MODEL_SERVER_VARIABLE = 'LOCAL_MODEL_SERVER';

const OLLAMA = 'ollama';

/** A model server the framework can be wired to in this stack (Ollama, or a service with `modelServer`). */
function usable(member: StackMember): boolean {
  if (member.plugin.kind !== 'service') return false;
  if (member.plugin.id === OLLAMA) return true;
  return Boolean((member.plugin as ServicePlugin).manifest.modelServer);
}

/** The servers of this stack a framework is wired to, in its order of preference (the first one answers). */
export function wiredServers(members: readonly StackMember[], framework: StackMember): StackMember[] {
  const order = (framework.plugin as FrameworkPlugin).manifest.firstRun.localModels ?? [];
  return order
    .map((id) => members.find((m) => m.plugin.id === id))
    .filter((m): m is StackMember => m !== undefined && usable(m));
}

/**
 * What a framework (container or native) receives for the servers it is wired to (besides <PREFIX>_URL, which every
 * framework gets): <PREFIX>_MODEL from .env and the server's key as <PREFIX>_API_KEY (this framework only),
 * and the choice among several.
 */
export function modelServerEnv(model: StackModel, framework: StackMember): ModelServerVariable[] {
  if (framework.plugin.kind !== 'framework') return [];
  const servers = wiredServers(model.members, framework);
  const out: ModelServerVariable[] = [];
  for (const s of servers) {
    const spec = (s.plugin as ServicePlugin).manifest.modelServer;
    if (!spec) continue;
    const prefix = envPrefix(s.plugin.id);
    out.push({ name: `${prefix}_MODEL`, variable: spec.model });
    if (spec.embedModel) out.push({ name: `${prefix}_EMBED_MODEL`, variable: spec.embedModel });
    const key = spec.apiKey ? (s.plugin.manifest.environment ?? []).find((e) => e.name === spec.apiKey) : undefined;
    if (key) out.push({ name: `${prefix}_API_KEY`, variable: envKey(s.plugin.id, key) });
  }
  if (servers.length > 1) out.push({ name: LOCAL_MODEL_SERVER_VARIABLE, variable: LOCAL_MODEL_SERVER_VARIABLE, fallback: '' });
  return out;
}

/** Whether some framework of the stack has a choice of servers (then .env gets LOCAL_MODEL_SERVER). */
export function hasServerChoice(members: readonly StackMember[]): boolean {
  return members.some((m) => m.plugin.kind === 'framework' && wiredServers(members, m).length > 1);
}
