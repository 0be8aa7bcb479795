// The stack model: everything the file builders need, computed once per request from the resolution.
// Builders (compose, env file, proxy, scripts, README) only read it.
import type { ContainerPlugin, EnvSpec, FrameworkPlugin } from '../catalogue/types.js';
import type { Resolution } from './resolve.js';
import { envPrefix } from './env-names.js';
import { perObject } from '../memo.js';

export interface StackOptions {
  name: string;
  domain?: string;
  gpu: boolean;
  platform?: string;
  deployment: 'docker' | 'bare-metal' | 'kubernetes' | 'swarm';
  hardened: boolean;
}

/** One variable of .env.example. */
export interface EnvVar {
  key: string;
  description: string;
  /** value written to .env.example ('' for secrets and user input) */
  example: string;
  secret?: { length: number; charset: 'hex' | 'alnum'; prefix: string };
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
  /** true: every interface (the proxy, with a public domain); false: STACK_BIND_ADDRESS */
  public: boolean;
  /** a web port without a login of its own: always 127.0.0.1, reached from elsewhere only through the proxy's login */
  loopback: boolean;
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
  /** the port has no login of its own (or the first visitor claims it): basic auth in front */
  protected: boolean;
  /** path mode only: remove the prefix before passing the request on */
  strip: boolean;
}

/** A consumer's own database on a shared server, created by the server's setup container. */
export interface StackDatabase {
  server: string;
  consumer: string;
  name: string;
  user: string;
  /** .env key of the role password */
  passwordVariable: string;
  additional: string[];
  extensions: string[];
  /** a framework's own database (its skill packs use the server): the variable it gets the URL in */
  urlVariable: string | null;
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
  /** routes are served over HTTPS (a proxy with automatic certificates and a public domain) */
  https: boolean;
  /** the URL a browser opens each plugin's first web port at (no trailing slash) */
  publicUrls: ReadonlyMap<string, string>;
  /** some route is behind the proxy's basic auth */
  proxyAuth: boolean;
  databases: StackDatabase[];
  /** services the stack's skill packs call (required or optional): frameworks get their credentials */
  skillServices: ReadonlySet<string>;
  /** container members that reach the Docker API through the socket proxy */
  dockerApiUsers: readonly ContainerPlugin[];
}

/** The items by key, each list in the items' order. */
export function groupedBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const list = out.get(key);
    if (list) list.push(item);
    else out.set(key, [item]);
  }
  return out;
}

/** One list of items per id, in the list's order (an index built once per model). */
function indexBy<T>(cache: WeakMap<StackModel, Map<string, T[]>>, model: StackModel, items: readonly T[], idOf: (item: T) => string): Map<string, T[]> {
  let index = cache.get(model);
  if (!index) cache.set(model, (index = groupedBy(items, idOf)));
  return index;
}
const portIndex = new WeakMap<StackModel, Map<string, PublishedPort[]>>();
const consumerIndex = new WeakMap<StackModel, Map<string, StackDatabase[]>>();

/**
 * A member's published ports (model.ports of that plugin, in order). Every emitter asks this of every
 * member: filtering the whole list each time grew with the square of a stack's size.
 */
export function portsOf(model: StackModel, pluginId: string): readonly PublishedPort[] {
  return indexBy(portIndex, model, model.ports, (p) => p.plugin).get(pluginId) ?? [];
}

/** The databases a member consumes (model.databases of that consumer, in order). */
export function databasesOf(model: StackModel, consumerId: string): readonly StackDatabase[] {
  return indexBy(consumerIndex, model, model.databases, (d) => d.consumer).get(consumerId) ?? [];
}

/** The .env key a plugin's variable is stored under. */
export function envKey(pluginId: string, spec: EnvSpec): string {
  return spec.shared ? spec.name : `${envPrefix(pluginId)}_${spec.name}`;
}

/** The .env variable holding the address service host ports listen on (the proxy listens everywhere). */
export const BIND_VARIABLE = 'STACK_BIND_ADDRESS';

/** Log rotation for every container, set once in .env. */
export const LOG_VARIABLES = { driver: 'STACK_LOG_DRIVER', maxSize: 'STACK_LOG_MAX_SIZE', maxFile: 'STACK_LOG_MAX_FILE' } as const;

/**
 * .env keys of a client credential of a plugin, with whether each is a generated secret (compose insists on
 * those) or a value the user may leave empty: what frameworks whose skills use the plugin receive. Read off
 * the manifest once (asked for every service of every stack).
 */
export const clientVariables = perObject((plugin: ContainerPlugin): readonly Readonly<{ key: string; secret: boolean }>[] =>
  Object.freeze((plugin.manifest.environment ?? []).filter((e) => e.client && !e.shared).map((e) => Object.freeze({ key: envKey(plugin.id, e), secret: Boolean(e.secret) }))));

/** The same keys alone. */
export const clientKeys = perObject((plugin: ContainerPlugin): readonly string[] => Object.freeze(clientVariables(plugin).map((v) => v.key)));

/** Proxy basic-auth credentials in .env (the user, and the password start.sh generates). */
export const PROXY_USER_VARIABLE = 'STACK_PROXY_USER';
export const PROXY_PASSWORD_VARIABLE = 'STACK_PROXY_PASSWORD';
/**
 * The ACME directory the proxy gets its certificates from (a public domain only). Empty in .env means
 * Let's Encrypt production; the proxy container always receives a URL, so each proxy's config reads one
 * variable without a default of its own.
 */
export const ACME_CA_VARIABLE = 'STACK_ACME_CA';
export const ACME_CA_DEFAULT = 'https://acme-v02.api.letsencrypt.org/directory';
/**
 * The ACME directory a scratch copy of the stack gets (scripts/backup.sh verify): a name that never resolves
 * (RFC 6761 .invalid). The copy's proxy answers on other ports than the stack's, so any certificate it asked the
 * stack's CA for would fail its challenge, counted against the domain at Let's Encrypt (with the account the
 * backup restored); with this it asks no one.
 */
export const ACME_CA_UNREACHABLE = 'https://acme.invalid/directory';
/** Where bare-metal natives listen: the Docker host-gateway address, filled in by install.sh. */
export const NATIVE_BIND_VARIABLE = 'STACK_NATIVE_BIND';

/** Whether a variable is emitted in this stack (ifPresent names a plugin that must be in it). */
export function envApplies(spec: EnvSpec, plugins: ReadonlyMap<string, ContainerPlugin>): boolean {
  return spec.ifPresent === undefined || plugins.has(spec.ifPresent);
}

/** A native part's home and the only place it may write (the unit's HOME and ReadWritePaths). */
export function nativeStateDir(stackName: string, pluginId: string): string {
  return `/var/lib/stackwright/${stackName}/${pluginId}`;
}

/** Where a native framework's reference config goes: its nativePath, with ~ as its state folder. */
export function nativeConfigPath(stackName: string, framework: FrameworkPlugin): string {
  return framework.manifest.config.nativePath.replace(/^~(?=\/)/, nativeStateDir(stackName, framework.id));
}

/** Native installs keep skills beside their config file. */
export function nativeSkillsDir(stackName: string, framework: FrameworkPlugin): string {
  return `${nativeConfigPath(stackName, framework).replace(/\/[^/]*$/, '')}/skills`;
}

/** The image a member runs: its GPU build when the stack asks for a GPU and the plugin has one. */
export function imageRef(plugin: ContainerPlugin, gpu: boolean): string {
  return imageRefs(plugin)[gpu ? 1 : 0];
}

/** A plugin's image references without and with a GPU: one string each for every emitter and template of every stack. */
const imageRefs = perObject((plugin: ContainerPlugin): readonly [string, string] => {
  const m = plugin.manifest;
  const gpuTag = plugin.kind === 'service' && (plugin.manifest.gpu === 'optional' || plugin.manifest.gpu === 'required') ? plugin.manifest.gpuImageTag : undefined;
  return [`${m.image}:${m.imageTag}`, `${m.image}:${gpuTag ?? m.imageTag}`];
});

/**
 * What a framework receives besides its own variables, wherever it runs (DECISIONS "Secrets"): the
 * client credentials of the services its skill packs call, and the tokens those packs ask the user for.
 * `secret` tells a generated secret (always there) from a value the user may still leave empty.
 */
export function frameworkCredentials(model: StackModel): { key: string; secret: boolean }[] {
  const credentials = model.members
    .filter((m) => m.plugin.kind === 'service' && model.skillServices.has(m.plugin.id))
    .flatMap((m) => clientVariables(m.plugin));
  return [...credentials, ...skillTokens(model).map((t) => ({ key: t.name, secret: false }))];
}

/** Tokens the stack's skill packs ask the user for, of services in the stack (each once). */
export function skillTokens(model: Pick<StackModel, 'resolution' | 'plugins'>): { name: string; service: string; description: string }[] {
  const seen = new Set<string>();
  return model.resolution.skillPacks.flatMap((p) => p.manifest.tokens ?? []).filter((t) => {
    if (seen.has(t.name) || !model.plugins.has(t.service)) return false;
    seen.add(t.name);
    return true;
  });
}
