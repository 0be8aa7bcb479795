// Where a stack member is reached from, for a reader in a container or on the host (bare-metal natives).
// The framework config files, the <PREFIX>_URL variables frameworks receive and the native env files
// all take addresses from here, so skills see the same URL wherever they run.
import { portsOf, type StackMember, type StackModel } from './model.js';
import { urlVariable } from './env-names.js';
import type { ContainerPlugin } from '../catalogue/types.js';
import { perObject } from '../memo.js';

export type Viewer = 'container' | 'native';

export interface MemberAddress {
  /** host name or address the viewer uses */
  host: string;
  /** the container port of the main port: the first web port the viewer reaches, else the first it reaches */
  mainPort: number | null;
  /** base URL of the main port, or null */
  url: string | null;
}

export function addressOf(model: StackModel, member: StackMember, viewer: Viewer): MemberAddress {
  // a container seen from a container: its name and container ports, the plugin's alone
  if (viewer === 'container' && member.placement === 'container') return containerAddress(member.plugin);
  let host: string;
  let port: (c: number) => number | null;
  if (viewer === 'container') {
    // a native part, through the host gateway
    host = 'host.docker.internal';
    port = (c) => c;
  } else {
    const published = new Map(portsOf(model, member.plugin.id).map((p) => [p.container, p.host]));
    host = '127.0.0.1';
    port = (c) => (member.placement === 'native' ? c : published.get(c) ?? null);
  }
  const ports = member.plugin.manifest.ports ?? [];
  const main = ports.find((p) => p.web && port(p.container) !== null) ?? ports.find((p) => port(p.container) !== null);
  return { host, mainPort: main?.container ?? null, url: main ? `http://${host}:${port(main.container)}` : null };
}

/** A container plugin's address as other containers reach it, frozen: once per plugin. */
const containerAddress = perObject((plugin: ContainerPlugin): Readonly<MemberAddress> => {
  const ports = plugin.manifest.ports ?? [];
  const main = ports.find((p) => p.web) ?? ports[0];
  return Object.freeze({ host: plugin.id, mainPort: main?.container ?? null, url: main ? `http://${plugin.id}:${main.container}` : null });
});

/**
 * [<PREFIX>_URL, base URL] of every service in the stack, as the viewer reaches it. A container's address
 * seen from a container is the plugin's alone (its name and container port): that pair is one frozen
 * array per plugin, the same in every stack, so what is written from it can be kept by it (compose.ts).
 */
export function serviceUrlVariables(model: StackModel, viewer: Viewer): (readonly [string, string])[] {
  const out: (readonly [string, string])[] = [];
  for (const m of model.members) {
    if (m.plugin.kind !== 'service') continue;
    if (viewer === 'container' && m.placement === 'container') {
      const pair = containerUrlVariable(m.plugin);
      if (pair) out.push(pair);
      continue;
    }
    const { url } = addressOf(model, m, viewer);
    if (url) out.push([urlVariable(m.plugin.id), url]);
  }
  return out;
}

/** A container plugin's [<PREFIX>_URL, base URL] as other containers reach it, or null without a port: once per plugin. */
const containerUrlVariable = perObject((plugin: ContainerPlugin): readonly [string, string] | null => {
  const { url } = containerAddress(plugin);
  return url ? Object.freeze([urlVariable(plugin.id), url] as const) : null;
});
