// From a resolution and the request's options to the stack model: where each plugin runs, the .env
// variables, host ports (clashes moved, DECISIONS "Host-port clashes"), the proxy's routes and who may
// use them (DECISIONS "Running stacks"), public URLs and the databases each consumer owns.
import type { ContainerPlugin, EnvSpec, ServicePlugin } from '../catalogue/types.js';
import { hasServerChoice, LOCAL_MODEL_SERVER_VARIABLE } from './model-servers.js';
import { VALUE_REF } from '../catalogue/rules.js';
import type { Resolution } from './resolve.js';
import { BACKUP_KEEP_DEFAULT, BACKUP_KEEP_VARIABLE } from './helper-image.js';
import { SOCKET_PROXY_IMAGE, SOCKET_PROXY_MEMORY_MB, SOCKET_PROXY_SERVICE, SOCKET_PROXY_TAG } from './socket-proxy.js';
import {
  ACME_CA_DEFAULT, ACME_CA_VARIABLE, BIND_VARIABLE, envApplies, envKey, groupedBy, imageRef, LOG_VARIABLES, skillTokens, NATIVE_BIND_VARIABLE, PROXY_PASSWORD_VARIABLE, PROXY_USER_VARIABLE,
  type EnvVar, type PublishedPort, type Route, type StackDatabase, type StackMember, type StackModel, type StackOptions,
} from './model.js';
import { envPrefix, imageVariable, memoryVariable, portVariable } from './env-names.js';
import { KeptSlots, perObject, perString } from '../memo.js';

export function buildModel(resolution: Resolution, options: StackOptions): StackModel {
  const members = placeMembers(resolution, options);
  const plugins = new Map(members.map((m) => [m.plugin.id, m.plugin]));
  const https = Boolean(resolution.proxy?.manifest.automaticHttps) && isPublicDomain(options.domain);
  const { ports, portMoves } = allocatePorts(members, options, https);
  const routes = resolution.proxy ? buildRoutes(members, options, https) : [];
  const publicUrls = buildPublicUrls(members, ports, routes);
  const proxyAuth = routes.some((r) => r.protected);
  const skillServices = new Set(resolution.skillPacks.flatMap((p) => [...p.manifest.requiredServices, ...(p.manifest.optionalServices ?? [])]));
  const dockerApiUsers = members.filter((m) => m.placement === 'container' && m.plugin.manifest.dockerApi).map((m) => m.plugin);
  const databases = collectDatabases(members, skillServices);
  const env = collectEnv(members, plugins, ports, options, publicUrls, proxyAuth, databases, dockerApiUsers.length > 0, https);
  // the tokens are few and the variables many: the variables are read once for the tokens' names
  const tokens = skillTokens({ resolution, plugins });
  const tokenNames = new Set(tokens.map((t) => t.name));
  const present = new Set(tokenNames.size ? env.filter((v) => tokenNames.has(v.key)).map((v) => v.key) : []);
  for (const t of tokens) {
    if (present.has(t.name)) continue;
    present.add(t.name);
    env.push({ key: t.name, example: '', required: false, group: t.service, description: `${t.description} (for the agents' skills; optional)` });
  }
  return {
    options,
    resolution,
    members,
    plugins,
    env,
    ports,
    routes,
    portMoves,
    https,
    publicUrls,
    proxyAuth,
    databases,
    skillServices,
    dockerApiUsers,
  };
}

/** A domain other machines resolve (localhost is this machine only). */
export function isPublicDomain(domain: string | undefined): domain is string {
  return domain !== undefined && domain !== 'localhost';
}

function placeMembers(resolution: Resolution, options: StackOptions): StackMember[] {
  const bareMetal = options.deployment === 'bare-metal';
  const place = (plugin: ContainerPlugin): StackMember['placement'] =>
    bareMetal && plugin.kind !== 'proxy' && plugin.manifest.native ? 'native' : 'container';
  const frameworkDeps = new Set(resolution.resolvedServices.slice(0, resolution.resolvedServices.indexOf(resolution.primary.id)));
  const members: StackMember[] = [];
  for (const s of resolution.services) if (frameworkDeps.has(s.id)) members.push({ plugin: s, placement: place(s) });
  members.push({ plugin: resolution.primary, placement: place(resolution.primary), role: 'primary' });
  for (const c of resolution.companions) members.push({ plugin: c, placement: place(c), role: 'companion' });
  for (const s of resolution.services) if (!frameworkDeps.has(s.id)) members.push({ plugin: s, placement: place(s) });
  if (resolution.proxy) members.push({ plugin: resolution.proxy, placement: 'container' });
  return members;
}

/**
 * Host ports in member order; a port already taken moves the later plugin to the next free one.
 * Native plugins bind their own ports on the host, so those are reserved first and never moved.
 * The proxy publishes 443 only when it serves HTTPS there, and listens on every interface only for a
 * public domain: without one the stack is local (STACK_BIND_ADDRESS) until the user opens it.
 */
function allocatePorts(members: StackMember[], options: StackOptions, https: boolean) {
  // a port by number, UDP ports above the TCP range (no string built per port and probe)
  const taken = new Set<number>();
  const slot = (protocol: string, port: number) => (protocol === 'udp' ? port + 65536 : port);
  const ports: PublishedPort[] = [];
  const portMoves: StackModel['portMoves'] = [];
  for (const m of members) {
    if (m.placement !== 'native') continue;
    for (const p of m.plugin.manifest.ports ?? []) taken.add(slot(p.protocol ?? 'tcp', p.container));
  }
  for (const m of members) {
    if (m.placement === 'native') continue;
    const isProxy = m.plugin.kind === 'proxy';
    const variables = portVariables(m.plugin);
    const declared = m.plugin.manifest.ports ?? [];
    for (let i = 0; i < declared.length; i++) {
      const p = declared[i];
      if (p.host === undefined) continue;
      if (isProxy && p.container === 443 && !https) continue;
      const protocol = p.protocol ?? 'tcp';
      let host = p.host;
      while (taken.has(slot(protocol, host)) && host < 65535) host++;
      taken.add(slot(protocol, host));
      if (host !== p.host) portMoves.push({ plugin: m.plugin.id, container: p.container, from: p.host, to: host });
      const open = isProxy && isPublicDomain(options.domain);
      // the rest is the manifest's port: the same object while the port keeps its host port and reach
      const last = keptPorts.get(m.plugin, i);
      ports.push(last !== undefined && last.host === host && last.public === open ? last : keptPorts.keep(m.plugin, i, {
        plugin: m.plugin.id, container: p.container, protocol, variable: variables[i],
        host, web: p.web ?? false, description: p.description, public: open,
        loopback: Boolean(p.web && p.auth !== 'own'),
      }));
    }
  }
  return { ports, portMoves };
}

/**
 * Each plugin port as published, frozen, by the plugin and the port's place in its manifest: one object per
 * port and host port across stacks, so what is built of it (a compose block's input, compose.ts) is compared
 * by identity.
 */
const keptPorts = new KeptSlots<ContainerPlugin, PublishedPort>();

/** The .env variable of each of a plugin's ports, in its order: one string each for every stack (the variables kept by it: collectEnv). */
const portVariables = perObject((plugin: ContainerPlugin): readonly string[] =>
  (plugin.manifest.ports ?? []).map((p) => portVariable(plugin.id, p.container, p.protocol ?? 'tcp')));

/**
 * One route per web port. With a domain every web port gets its host name; without one only ports
 * that work under a path prefix (subpath) get /<name>/. Ports without a login of their own sit behind
 * the proxy's basic auth.
 */
function buildRoutes(members: StackMember[], options: StackOptions, https: boolean): Route[] {
  const routes: Route[] = [];
  for (const m of members) {
    if (m.plugin.kind === 'proxy') continue;
    const webPorts = (m.plugin.manifest.ports ?? []).filter((p) => p.web);
    webPorts.forEach((p, i) => {
      if (!options.domain && !p.subpath) return;
      const name = i === 0 ? m.plugin.id : `${m.plugin.id}-${p.container}`;
      const upstreamHost = m.placement === 'native' ? 'host.docker.internal' : m.plugin.id;
      const host = options.domain ? `${name}.${options.domain}` : null;
      routes.push({
        service: m.plugin.id,
        port: p.container,
        host,
        path: `/${name}`,
        upstream: `${upstreamHost}:${p.container}`,
        url: host ? `${https ? 'https' : 'http'}://${host}/` : `http://localhost/${name}/`,
        protected: p.auth !== 'own',
        strip: !host && p.subpath === 'strip',
      });
    });
  }
  return routes;
}

/** What a plugin's .env variables (those the stack sets, not fixed values) give every stack, read off its manifest once. */
interface EnvEntry {
  spec: EnvSpec;
  key: string;
  secret: EnvVar['secret'];
  /** the .env.example value, or null where the default names a public URL (it is the stack's) */
  example: string | null;
  required: boolean;
  group: string;
  /** the variable itself where its example is fixed: one frozen object in every stack's model */
  variable: EnvVar | null;
}

const envEntries = perObject((plugin: ContainerPlugin): readonly EnvEntry[] => (plugin.manifest.environment ?? []).filter((spec) => spec.value === undefined).map((spec) => {
  const options = spec.secret === true ? {} : spec.secret;
  // frozen: one object shared by every stack's model
  const secret = options === undefined ? undefined
    : Object.freeze({ length: options.length ?? 32, charset: options.charset ?? 'alnum', prefix: options.prefix ?? '' });
  const fixed = spec.default ?? '';
  const key = envKey(plugin.id, spec);
  const example = fixed.includes('{{') ? null : fixed;
  const required = Boolean(spec.required || secret);
  const group = spec.shared ? '' : plugin.id;
  const variable = example === null ? null : Object.freeze({ key, description: spec.description, secret, required, group, example });
  return { spec, key, secret, example, required, group, variable };
}));

/**
 * The variables the stack keeps for each container of a plugin (its image and memory limit, each host port at the
 * port it got, the password of each database it owns), frozen and the same object in every stack that has
 * them: the bundle files keep what they write of a variable by that object (bundle-files.ts). A slot is named
 * by what tells its variable apart (`:image` and `:memory`, which no plugin id or variable can be, a port's
 * variable, a database server's id), never by a key built per stack, and holds one variable, given back while
 * its example is the same.
 */
const keptVariables = new KeptSlots<ContainerPlugin, EnvVar>();

function keptVariable(plugin: ContainerPlugin, slot: string, example: string, make: () => Omit<EnvVar, 'example'>): EnvVar {
  const last = keptVariables.get(plugin, slot);
  return last !== undefined && last.example === example ? last : keptVariables.keep(plugin, slot, { ...make(), example });
}

/** A stack-wide variable whose facts are fixed, frozen once. */
function stackVariable(key: string, example: string, description: string, required = false, secret?: EnvVar['secret']): EnvVar {
  return Object.freeze({ key, example, description, required, group: '', ...(secret ? { secret: Object.freeze(secret) } : {}) });
}

/** Where a browser opens each plugin's first web port: its route, else its host port on this machine. */
function buildPublicUrls(members: StackMember[], ports: PublishedPort[], routes: Route[]): Map<string, string> {
  const urls = new Map<string, string>();
  // each plugin's routes and published ports, by plugin (a search of the whole lists per member was quadratic;
  // a plugin has a port or two, searched in order, so the first of a port is found)
  const routesOf = groupedBy(routes, (r) => r.service);
  const publishedOf = groupedBy(ports, (p) => p.plugin);
  for (const m of members) {
    const web = (m.plugin.manifest.ports ?? []).find((p) => p.web);
    if (!web) continue;
    const route = routesOf.get(m.plugin.id)?.find((r) => r.port === web.container);
    const published = publishedOf.get(m.plugin.id)?.find((p) => p.container === web.container);
    let url: string;
    if (route) url = route.url.replace(/\/$/, '');
    else if (m.placement === 'native') url = `http://localhost:${web.container}`;
    else if (published) url = `http://localhost:${published.host}`;
    else url = `http://${m.plugin.id}:${web.container}`;
    urls.set(m.plugin.id, url);
  }
  return urls;
}

function collectEnv(
  members: StackMember[], plugins: ReadonlyMap<string, ContainerPlugin>, ports: PublishedPort[], options: StackOptions,
  publicUrls: ReadonlyMap<string, string>, proxyAuth: boolean, databases: StackDatabase[], socketProxy: boolean, https: boolean,
): EnvVar[] {
  const vars: EnvVar[] = [{
    key: 'COMPOSE_PROJECT_NAME', description: 'Compose project name: prefixes container and volume names',
    example: options.name, required: true, group: '',
  }];
  const seen = new Set(['COMPOSE_PROJECT_NAME']);
  for (let i = 0; i < members.length; i++) {
    const entries = envEntries(members[i].plugin);
    for (let j = 0; j < entries.length; j++) {
      const { spec, key, secret, example, required, group, variable } = entries[j];
      if (!envApplies(spec, plugins) || seen.has(key)) continue;
      seen.add(key);
      vars.push(variable ?? {
        key, description: spec.description, secret, required, group,
        example: example ?? spec.default!.replace(VALUE_REF, (_ref, _t, _v, _location, target: string) => publicUrls.get(target) ?? ''),
      });
    }
  }
  // the role passwords of frameworks' own databases (declared ones are the plugins' own variables)
  for (const db of databases.filter((d) => d.urlVariable && !seen.has(d.passwordVariable))) {
    seen.add(db.passwordVariable);
    vars.push(keptVariable(plugins.get(db.consumer)!, db.server, '', () => ({
      key: db.passwordVariable, required: true, group: db.consumer, secret: Object.freeze({ length: 32, charset: 'alnum', prefix: '' }),
      description: `Password of ${db.consumer}'s own database user on ${db.server} (its skills use it through ${db.urlVariable})`,
    })));
  }
  if (ports.length) vars.push(STACK_VARIABLES.bind);
  if (proxyAuth) vars.push(STACK_VARIABLES.proxyUser, STACK_VARIABLES.proxyPassword);
  if (hasServerChoice(members)) {
    vars.push({
      key: LOCAL_MODEL_SERVER_VARIABLE, example: '', required: false, group: '',
      description: `Local model server the frameworks answer with when no cloud key is set: the id of one in this stack (${members.filter((m) => m.plugin.kind === 'service' && (m.plugin.id === 'ollama' || (m.plugin as ServicePlugin).manifest.modelServer)).map((m) => m.plugin.id).join(', ')}); empty: each framework's own order (the README names it)`,
    });
  }
  if (https) vars.push(STACK_VARIABLES.acme);
  // every container's image and memory limit: the catalogue's values, changeable per service
  for (const m of members) {
    if (m.placement !== 'container') continue;
    const plugin = m.plugin;
    vars.push(keptVariable(plugin, ':image', imageRef(plugin, options.gpu), () => ({ key: imageVariable(plugin.id), required: false, group: plugin.id,
      description: 'Image and tag (scripts/update.sh pulls it; change the tag to move this service forward or back)' })));
    vars.push(keptVariable(plugin, ':memory', `${plugin.manifest.memoryLimitMB}m`, () => ({ key: memoryVariable(plugin.id), required: false, group: plugin.id,
      description: 'Memory limit (the working set upstream recommends); the container is stopped by the kernel above it' })));
  }
  if (socketProxy) vars.push(STACK_VARIABLES.socketProxyImage, STACK_VARIABLES.socketProxyMemory);
  if (members.some((m) => m.placement === 'container' && (m.plugin.manifest.volumes ?? []).length)) vars.push(STACK_VARIABLES.backupKeep);
  vars.push(STACK_VARIABLES.logDriver, STACK_VARIABLES.logMaxSize, STACK_VARIABLES.logMaxFile);
  if (members.some((m) => m.placement === 'native')) vars.push(STACK_VARIABLES.nativeBind);
  for (const p of ports) {
    vars.push(keptVariable(plugins.get(p.plugin)!, p.variable, String(p.host), () => ({
      key: p.variable, description: hostPortDescription(p.description), required: false, group: p.plugin,
    })));
  }
  return vars;
}

/** The stack-wide variables whose facts are the same in every stack. */
const STACK_VARIABLES = {
  bind: stackVariable(BIND_VARIABLE, '127.0.0.1',
    'Address the host ports listen on (the proxy too when the stack has no public domain): 127.0.0.1 keeps them on this machine; 0.0.0.0 opens them to the network, so do that only behind a firewall you trust'),
  proxyUser: stackVariable(PROXY_USER_VARIABLE, 'admin', 'User name the proxy asks for in front of services without a login of their own', true),
  proxyPassword: stackVariable(PROXY_PASSWORD_VARIABLE, '', 'Password the proxy asks for (scripts/start.sh hashes it into the proxy configuration on every start)', true,
    { length: 32, charset: 'alnum', prefix: '' }),
  acme: stackVariable(ACME_CA_VARIABLE, '',
    `ACME directory URL the proxy gets its certificates from: empty means Let's Encrypt production (${ACME_CA_DEFAULT}); set https://acme-staging-v02.api.letsencrypt.org/directory while testing (untrusted certificates, generous rate limits) or your own ACME CA's directory`),
  socketProxyImage: stackVariable(imageVariable(SOCKET_PROXY_SERVICE), `${SOCKET_PROXY_IMAGE}:${SOCKET_PROXY_TAG}`,
    'Image of the Docker socket proxy (the only container that sees the Docker socket; it passes on just the API parts the services need)'),
  socketProxyMemory: stackVariable(memoryVariable(SOCKET_PROXY_SERVICE), `${SOCKET_PROXY_MEMORY_MB}m`, 'Memory limit of the Docker socket proxy'),
  backupKeep: stackVariable(BACKUP_KEEP_VARIABLE, String(BACKUP_KEEP_DEFAULT),
    'How many backups scripts/backup.sh keeps in backups/ (the oldest are removed after a new one is written)'),
  logDriver: stackVariable(LOG_VARIABLES.driver, 'json-file', 'Docker log driver of every container (json-file or local both rotate)'),
  logMaxSize: stackVariable(LOG_VARIABLES.maxSize, '10m', 'Size at which a container log file is rotated'),
  logMaxFile: stackVariable(LOG_VARIABLES.maxFile, '3', 'Rotated log files kept per container'),
  nativeBind: stackVariable(NATIVE_BIND_VARIABLE, '',
    'Address the natively installed parts listen on: the Docker host-gateway address, so containers reach them and the network does not (install.sh fills it in)'),
};

/** A host port variable's description, one string per port description (the same object in every stack: later lookups by it are cheap). */
const hostPortDescription = perString(10_000, (portDescription) => `Host port for ${portDescription}`);

/**
 * Each consumer's own database: what a plugin declares, and for a framework whose skill packs use a
 * database server, a database of its own there too, with its URL handed to it as <SERVER>_DATABASE_URL.
 */
function collectDatabases(members: StackMember[], skillServices: ReadonlySet<string>): StackDatabase[] {
  const out: StackDatabase[] = [];
  const servers = members.filter((m) => m.plugin.kind === 'service' && m.plugin.manifest.databaseServer).map((m) => m.plugin.id);
  for (const m of members) {
    const declared = m.plugin.manifest.databases ?? [];
    const forSkills = m.plugin.kind === 'framework' ? servers.filter((id) => skillServices.has(id)) : [];
    if (!declared.length && !forSkills.length) continue;
    for (const server of new Set([...declared.map((d) => d.server), ...forSkills])) out.push(database(m.plugin, server, forSkills.includes(server)));
  }
  return out;
}

/**
 * A consumer's database on a server, frozen: the facts are the plugin's, and whether its skills reach it by
 * URL, so one object per consumer and server serves every stack that has it.
 */
function database(plugin: ContainerPlugin, server: string, forSkills: boolean): StackDatabase {
  const last = keptDatabases.get(plugin, server);
  if (last !== undefined && (last.urlVariable !== null) === forSkills) return last;
  const db = (plugin.manifest.databases ?? []).find((d) => d.server === server);
  const password = db ? (plugin.manifest.environment ?? []).find((e) => e.name === db.passwordEnv)! : undefined;
  const own = plugin.id.replace(/-/g, '_');
  return keptDatabases.keep(plugin, server, {
    server,
    consumer: plugin.id,
    name: db?.name ?? own,
    user: db?.user ?? own,
    passwordVariable: password ? envKey(plugin.id, password) : `${envPrefix(plugin.id)}_DB_PASSWORD`,
    additional: db?.additional ?? [],
    extensions: db?.extensions ?? [],
    urlVariable: forSkills ? `${envPrefix(server)}_DATABASE_URL` : null,
  });
}
const keptDatabases = new KeptSlots<ContainerPlugin, StackDatabase>();
