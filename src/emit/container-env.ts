// A container member's environment as the stack model gives it, for emitters that do not write Compose
// (Kubernetes, and Swarm's secrets): each variable's value as parts, fixed text or a .env variable, seen
// from a container on the stack network (services by name, container ports). The Compose emitter writes
// the same values as ${KEY} references; test/deploy/targets-agree.test.ts holds the targets equal.
import type { ContainerPlugin, ServicePlugin } from '../catalogue/types.js';
import { serviceUrlVariables } from '../model/addresses.js';
import { databaseUrl, substituteRefs, type ValueView } from '../model/values.js';
import { databasesOf, envApplies, envKey, frameworkCredentials, type StackMember, type StackModel } from '../model/model.js';
import { modelServerEnv } from '../model/model-servers.js';
import { mark, toParts, type ValuePart } from './bare-metal/native-env.js';

export type { ValuePart } from './bare-metal/native-env.js';

export interface ContainerVariable {
  name: string;
  parts: ValuePart[];
}

/** How a container on the stack network sees `{{...}}` references: .env variables stay variables. */
function containerView(model: StackModel): ValueView {
  return {
    variable: (key) => mark(key),
    host: (id) => id,
    port: (_id, containerPort) => String(containerPort),
    url: (id) => model.publicUrls.get(id) ?? '',
    literal: (text) => text,
  };
}

/** The variables a plugin's container receives, in the order Compose lists them. */
export function containerEnvironment(model: StackModel, member: StackMember): ContainerVariable[] {
  const plugin = member.plugin;
  const view = containerView(model);
  const env: ContainerVariable[] = (plugin.manifest.environment ?? []).filter((spec) => envApplies(spec, model.plugins)).map((spec) => ({
    name: spec.name,
    parts: spec.value !== undefined ? toParts(substituteRefs(spec.value, model.plugins, view)) : [{ variable: envKey(plugin.id, spec) }],
  }));
  if (plugin.kind !== 'framework') return env;
  const taken = new Set(env.map((e) => e.name));
  const add = (name: string, parts: ValuePart[]) => {
    if (taken.has(name)) return;
    taken.add(name);
    env.push({ name, parts });
  };
  for (const [name, url] of serviceUrlVariables(model, 'container')) add(name, [{ text: url }]);
  for (const db of databasesOf(model, plugin.id).filter((d) => d.urlVariable)) {
    const server = (model.plugins.get(db.server) as ServicePlugin).manifest.databaseServer!;
    add(db.urlVariable!, toParts(databaseUrl(model, db, { host: db.server, port: String(server.port), password: mark(db.passwordVariable), escape: (t) => t })));
  }
  for (const v of modelServerEnv(model, member)) add(v.name, [v.fallback === undefined ? { variable: v.variable } : { variable: v.variable, fallback: v.fallback }]);
  for (const { key } of frameworkCredentials(model)) add(key, [{ variable: key }]);
  return env;
}

/** The environment of a database server's one-shot setup: the server's variables, where it is, each consumer's password. */
export function setupEnvironment(model: StackModel, server: ServicePlugin): ContainerVariable[] {
  const setup = server.manifest.databaseServer!;
  const view = containerView(model);
  const env: ContainerVariable[] = (server.manifest.environment ?? []).filter((spec) => envApplies(spec, model.plugins)).map((spec) => ({
    name: spec.name,
    parts: spec.value !== undefined ? toParts(substituteRefs(spec.value, model.plugins, view)) : [{ variable: envKey(server.id, spec) }],
  }));
  env.push({ name: setup.hostEnv ?? 'PGHOST', parts: [{ text: server.id }] });
  for (const db of model.databases.filter((d) => d.server === server.id)) env.push({ name: db.passwordVariable, parts: [{ variable: db.passwordVariable }] });
  return env;
}

/** The .env keys a list of variables reads, each once, in first-use order. */
export function envKeysOf(env: readonly ContainerVariable[]): string[] {
  return [...new Set(env.flatMap((v) => v.parts.flatMap((p) => ('variable' in p ? [p.variable] : []))))];
}

/** Plugins a container's environment names by host ({{host:id}}, {{port:id:N}}): edges of the stack's network. */
export function referencedHosts(plugin: ContainerPlugin, model: StackModel): string[] {
  const out = new Set<string>();
  for (const spec of plugin.manifest.environment ?? []) {
    if (spec.value === undefined || !envApplies(spec, model.plugins)) continue;
    substituteRefs(spec.value, model.plugins, {
      variable: () => '', url: () => '', literal: () => '',
      host: (id) => (out.add(id), ''),
      port: (id) => (out.add(id), ''),
    });
  }
  out.delete(plugin.id);
  return [...out];
}
