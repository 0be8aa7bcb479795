// The stack model: everything the file builders need, computed once per request from the resolution.
// Builders (compose, env file, proxy, scripts, README) only read it.
import type { ContainerPlugin, EnvSpec } from '../catalogue/types.js';
import type { Resolution } from './resolve.js';
import { envPrefix } from './escape.js';

export interface StackOptions {
  name: string;
  domain?: string;
  gpu: boolean;
  platform?: string;
  deployment: 'docker' | 'bare-metal';
}

/** One variable of .env.example. */
export interface EnvVar {
  key: string;
  description: string;
  /** value written to .env.example ('' for secrets and user input) */
  example: string;
  secret?: { length: number; charset: 'hex' | 'alnum' };
  required: boolean;
  /** group heading: a plugin id, or '' for shared variables */
  group: string;
}

export interface PublishedPort {
  plugin: string;
  container: number;
  protocol: 'tcp' | 'udp';
  /** the .env variable holding the host port */
  variable: string;
  /** host port given after clash resolution */
  host: number;
  web: boolean;
  description: string;
  /** the proxy's own ports listen on every interface; the others on STACK_BIND_ADDRESS */
  proxy: boolean;
}

export interface Route {
  /** compose service the route leads to */
  service: string;
  port: number;
  /** host name to match (with a domain), else null */
  host: string | null;
  /** path prefix to match (without a domain), e.g. /grafana */
  path: string;
  /** upstream address as the proxy reaches it, e.g. grafana:3000 */
  upstream: string;
  /** the public URL of the route */
  url: string;
}

export interface StackMember {
  plugin: ContainerPlugin;
  /** 'native' members run on the host (bare-metal) and leave the compose file */
  placement: 'container' | 'native';
  role?: 'primary' | 'companion';
}

export interface StackModel {
  options: StackOptions;
  resolution: Resolution;
  /** in compose order: framework requirements, frameworks, services, proxy */
  members: StackMember[];
  /** every member's plugin by id */
  plugins: ReadonlyMap<string, ContainerPlugin>;
  env: EnvVar[];
  ports: PublishedPort[];
  routes: Route[];
  portMoves: { plugin: string; container: number; from: number; to: number }[];
}

/** The .env key a plugin's variable is stored under. */
export function envKey(pluginId: string, spec: EnvSpec): string {
  return spec.shared ? spec.name : `${envPrefix(pluginId)}_${spec.name}`;
}

/** The .env variable holding the address service host ports listen on (the proxy listens everywhere). */
export const BIND_VARIABLE = 'STACK_BIND_ADDRESS';

export function portVariable(pluginId: string, container: number, protocol: 'tcp' | 'udp'): string {
  return `${envPrefix(pluginId)}_PORT_${container}${protocol === 'udp' ? '_UDP' : ''}`;
}

/** Secret .env keys of a member (what framework containers receive to reach it). */
export function secretKeys(member: ContainerPlugin): string[] {
  return (member.manifest.environment ?? []).filter((e) => e.secret && !e.shared).map((e) => envKey(member.id, e));
}
