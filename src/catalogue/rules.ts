// Step 2 of loading: the checks a JSON Schema cannot express, across files. Each problem names the file,
// the JSON pointer of the field and a rule id from problems.ts.
import { compileTemplate, templateErrorMessage } from '../templating.js';
import { BACKUP_KINDS } from './backup-kinds.js';
import { checkFamilies } from './database-families.js';
import { checkMetrics } from './scrape-config.js';
import { didYouMean, type LoadRule, type Problem } from './problems.js';
import type { RawCatalogue } from './read.js';
import type { ContainerManifest, ContainerPlugin, FrameworkPlugin, ServicePlugin } from './types.js';
import { commentTargets } from '../bundle/framework-config.js';
import { volumeName } from '../model/layout.js';
import { numericUser } from './user-ids.js';

/**
 * References inside an env `value`: `{{id.VAR}}` (a variable of a plugin), `{{host:id}}` and
 * `{{port:id:PORT}}` (where a plugin is reached from the reader: a compose name and container port for
 * a container, 127.0.0.1 and the published host port for a native process), and `{{url:id}}` (the
 * public URL a browser opens the plugin's first web port at; the only reference a `default` may hold).
 * Groups: 1-2 variable reference, 3-5 location reference.
 */
/** The .env variable naming the model a framework wired to a local model server uses (firstRun.localModelVariables' default). */
export const LOCAL_MODEL_VARIABLE = 'OLLAMA_MODEL';

export const VALUE_REF = /\{\{\s*(?:([a-z0-9][a-z0-9-]*)\.([A-Z_][A-Z0-9_]*)|(host|port|url):([a-z0-9][a-z0-9-]*)(?::(\d+))?)\s*\}\}/g;

/** A tag that names no fixed release. */
export function isMovingTag(tag: string): boolean {
  return /^(latest|main|master|nightly|edge)$/i.test(tag);
}

/**
 * How a reference to a plugin that is not in the catalogue reads: "unknown service "x"" with a close
 * match, or, for a plugin whose own manifest did not load, where to look first (its errors are the cause).
 */
function missing(what: string, id: string, known: Iterable<string>, unloaded: ReadonlyMap<string, string>): string {
  const file = unloaded.get(id);
  return file ? `${what} "${id}", whose manifest did not load (fix the errors in ${file} first)` : `unknown ${what} "${id}"${didYouMean(id, known)}`;
}

export function checkCatalogue(raw: RawCatalogue, problems: Problem[]): void {
  const add = (file: string, pointer: string, rule: LoadRule, message: string, severity: Problem['severity'] = 'error') =>
    problems.push({ severity, file, pointer, rule, message });

  const categoryIds = new Set(raw.categories.map((c) => c.id));
  const services = new Map(raw.services.map((s) => [s.id, s]));
  const skillPackIds = new Set(raw.skillPacks.map((p) => p.id));
  const containers: ContainerPlugin[] = [...raw.services, ...raw.frameworks, ...raw.proxies];
  const byId = new Map<string, ContainerPlugin>();
  const allContainers = new Map(containers.map((c) => [c.id, c]));

  for (const plugin of containers) {
    const other = byId.get(plugin.id);
    if (other) {
      // name both files: neither is more right than the other
      add(other.file, '', 'id.duplicate', `"${plugin.id}" is also the id of ${plugin.file}; both would be Compose service "${plugin.id}"`);
      add(plugin.file, '', 'id.duplicate', `"${plugin.id}" is also the id of ${other.file}; both would be Compose service "${plugin.id}"`);
    } else {
      byId.set(plugin.id, plugin);
    }
    checkContainer(plugin, add);
    checkServiceRefs(plugin, services, allContainers, raw.unloaded, add);
  }

  checkVolumeNames(containers, add);
  checkFamilies(raw.services, containers, new Map(raw.databaseFamilies.map((f) => [f.id, f])), add);
  checkMetrics(raw.services, add);
  for (const s of raw.services) {
    checkBackup(s, add);
    if (!categoryIds.has(s.manifest.category)) {
      add(s.file, '/category', 'category.unknown', `category "${s.manifest.category}" is not in catalogue/categories.yaml${didYouMean(s.manifest.category, categoryIds)}`);
    }
    (s.manifest.conflictsWith ?? []).forEach((id, i) => {
      if (id === s.id) add(s.file, `/conflictsWith/${i}`, 'ref.self', 'a service cannot conflict with itself');
      else if (!services.has(id)) add(s.file, `/conflictsWith/${i}`, 'ref.unknown', `conflictsWith ${missing('service', id, services.keys(), raw.unloaded)}`);
    });
  }
  checkCycles(raw.services, add);

  for (const pack of raw.skillPacks) {
    const uses = new Set([...pack.manifest.requiredServices, ...(pack.manifest.optionalServices ?? [])]);
    (pack.manifest.tokens ?? []).forEach((t, i) => {
      if (!uses.has(t.service)) add(pack.file, `/tokens/${i}/service`, 'ref.unknown', `token ${t.name} is for "${t.service}", which the pack neither requires nor lists as optional`);
    });
    for (const [skill, needs] of Object.entries(pack.manifest.skillServices ?? {})) {
      if (!pack.manifest.skills.includes(skill)) add(pack.file, `/skillServices/${skill}`, 'ref.unknown', `skillServices names skill "${skill}", which is not in skills`);
      needs.forEach((id, i) => {
        if (!(pack.manifest.optionalServices ?? []).includes(id)) add(pack.file, `/skillServices/${skill}/${i}`, 'ref.unknown', `skill "${skill}" needs "${id}": list it in optionalServices (a required service is always there)`);
      });
    }
    for (const field of ['requiredServices', 'optionalServices'] as const) {
      (pack.manifest[field] ?? []).forEach((id, i) => {
        if (!services.has(id)) add(pack.file, `/${field}/${i}`, 'ref.unknown', `${field} names ${missing('service', id, services.keys(), raw.unloaded)}`);
      });
    }
  }

  for (const preset of raw.presets) checkPreset(preset, services, skillPackIds, raw, add);

  const defaults = raw.frameworks.filter((f) => f.manifest.default);
  if (raw.frameworks.length > 0 && defaults.length !== 1) {
    const file = defaults[1]?.file ?? raw.frameworks[0].file;
    add(file, '/default', 'framework.default', defaults.length === 0
      ? 'no framework is marked default: true; mark exactly one (the one used when a request names none)'
      : `${defaults.map((f) => f.id).join(', ')} are all marked default: true; keep exactly one`);
  }
}

type Add = (file: string, pointer: string, rule: LoadRule, message: string, severity?: Problem['severity']) => void;

/**
 * A stack names each volume <plugin id>-<volume name>, so plugin "a" with volume "b-data" and plugin "a-b"
 * with volume "data" would share one volume: two services writing one data folder. Both files are named.
 */
function checkVolumeNames(containers: readonly ContainerPlugin[], add: Add): void {
  const owners = new Map<string, { plugin: ContainerPlugin; index: number }>();
  for (const plugin of containers) {
    (plugin.manifest.volumes ?? []).forEach((v, index) => {
      const name = volumeName(plugin.id, v.name);
      const other = owners.get(name);
      if (!other) owners.set(name, { plugin, index });
      else if (other.plugin.id !== plugin.id) {
        add(plugin.file, `/volumes/${index}/name`, 'volume.clash', `volume "${v.name}" would be Docker volume "${name}", as would volume "${other.plugin.manifest.volumes![other.index].name}" of ${other.plugin.file}: rename one`);
        add(other.plugin.file, `/volumes/${other.index}/name`, 'volume.clash', `volume "${other.plugin.manifest.volumes![other.index].name}" would be Docker volume "${name}", as would volume "${v.name}" of ${plugin.file}: rename one`);
      }
    });
  }
}

function checkContainer(plugin: ContainerPlugin, add: Add): void {
  const m = plugin.manifest as ContainerManifest;
  if (isMovingTag(m.imageTag)) {
    add(plugin.file, '/imageTag', 'image.latest', `tag "${m.imageTag}" moves under you: pin a release version`);
  }
  duplicates((m.environment ?? []).map((e) => e.name), (name, i) => add(plugin.file, `/environment/${i}/name`, 'env.duplicate', `variable ${name} is declared twice`));
  duplicates((m.volumes ?? []).map((v) => v.name), (name, i) => add(plugin.file, `/volumes/${i}/name`, 'volume.duplicate', `volume "${name}" is declared twice`));
  // Docker covers an image's VOLUME only with a mount at exactly that path; any other folder gets a new anonymous
  // volume at every container, which `down` leaves behind and backups never see
  const targets = new Set((m.volumes ?? []).map((v) => v.target));
  (m.imageVolumes ?? []).forEach((folder, i) => {
    if (!targets.has(folder)) add(plugin.file, `/imageVolumes/${i}`, 'volume.image', `the image declares VOLUME ${folder}, and no volume has target ${folder}: give it one, even for a scratch folder (a mount at a parent or child folder does not cover it), or Docker makes an anonymous volume there at every new container that \`docker compose down\` leaves behind and backups miss`);
  });
  // a Kubernetes claim starts root-owned: the pod's group may write it only where the user it starts as is known
  if ((m.volumes ?? []).length && (m.user === undefined ? m.imageUser === undefined : !numericUser(m.user))) {
    add(plugin.file, m.user === undefined ? '/imageUser' : '/user', 'volume.owner', m.user === undefined
      ? `this plugin keeps data on a volume: give imageUser, the uid:gid ${m.image}:${m.imageTag} starts as (its last USER resolved to numbers, "0:0" without one), cited from its Dockerfile; on Kubernetes a claim starts root-owned, and a pod that starts as another user writes it only through fsGroup`
      : `user "${m.user}" is a name, which Kubernetes cannot run a pod as: give its numbers (uid:gid from the image's /etc/passwd), so the pod's claims can get its group`);
  }
  duplicates((m.ports ?? []).map((p) => `${p.container}/${p.protocol ?? 'tcp'}`), (port, i) => add(plugin.file, `/ports/${i}/container`, 'port.duplicate', `container port ${port} is listed twice`));
  (m.ports ?? []).forEach((p, i) => {
    if (p.web && !p.auth) {
      add(plugin.file, `/ports/${i}`, 'port.auth', `web port ${p.container} declares no auth: own (a login or token the stack sets is enforced by default), none or first-visitor (the proxy puts basic auth in front); an API only agents call is web: false`);
    } else if (!p.web && (p.auth || p.subpath)) {
      add(plugin.file, `/ports/${i}/${p.auth ? 'auth' : 'subpath'}`, 'port.auth', `port ${p.container} is not web: true, so it gets no route and ${p.auth ? 'auth' : 'subpath'} means nothing: remove it or set web: true`);
    }
  });
  (m.environment ?? []).forEach((e, i) => {
    // <PREFIX>_URL is the address frameworks receive for each service
    if (e.name === 'URL') add(plugin.file, `/environment/${i}/name`, 'env.reserved', `URL would be stored as ${plugin.id.toUpperCase().replace(/-/g, '_')}_URL, the address the stack hands frameworks: pick another name`);
    if (e.client && !e.secret && e.value !== undefined) add(plugin.file, `/environment/${i}/client`, 'env.scope', 'client marks a credential; a fixed value is no credential: remove client');
  });
  checkBinaries(plugin, add);
  checkBounds(plugin, add);
  checkLogin(plugin, add);
  if (plugin.kind === 'service' && plugin.manifest.modelServer) {
    // frameworks read the served model as <PREFIX>_MODEL (engine/model-servers.ts): the shared .env name must be that
    const { model: modelVar, embedModel, apiKey } = plugin.manifest.modelServer;
    const prefix = plugin.id.toUpperCase().replace(/-/g, '_');
    const declared = (name: string) => (m.environment ?? []).find((e) => e.name === name);
    for (const [field, name, want] of [['model', modelVar, `${prefix}_MODEL`], ['embedModel', embedModel, `${prefix}_EMBED_MODEL`]] as const) {
      if (name === undefined) continue;
      if (name !== want || !declared(name)?.shared) add(plugin.file, `/modelServer/${field}`, 'env.ref', `${field} ${name}: declare the served model as ${want} in environment with shared: true (frameworks receive it under that name)`);
    }
    if (apiKey !== undefined && !declared(apiKey)?.secret) add(plugin.file, '/modelServer/apiKey', 'env.ref', `apiKey ${apiKey} is not a secret this service declares in environment`);
  }
  if (plugin.kind === 'framework') {
    const shared = new Set((m.environment ?? []).filter((e) => e.shared).map((e) => e.name));
    const { keys, localModels, localModelVariables } = plugin.manifest.firstRun;
    keys.forEach((key, i) => {
      if (!shared.has(key)) add(plugin.file, `/firstRun/keys/${i}`, 'framework.first-run', `${key} is not a shared provider key this framework declares in environment`);
    });
    // the models a local model server needs are .env variables the README tells the user to pull
    if (localModels?.length) {
      const forServer = new Set((m.environment ?? []).filter((e) => e.shared && e.ifPresent && localModels.includes(e.ifPresent)).map((e) => e.name));
      (localModelVariables ?? [LOCAL_MODEL_VARIABLE]).forEach((name, i) => {
        if (!forServer.has(name)) add(plugin.file, localModelVariables ? `/firstRun/localModelVariables/${i}` : '/firstRun/localModels', 'framework.first-run', `${name} names a model of the local model server: declare it in environment with shared: true and ifPresent: ${localModels[0]}`);
      });
    }
    checkReferenceConfig(plugin, shared, add);
  }
  for (const [name, source] of plugin.templates) {
    try {
      compileTemplate(source);
    } catch (e) {
      add(plugin.file, '', 'template.compile', `template "${name}" does not compile: ${templateErrorMessage(e)}`);
    }
  }
}

/** What the shared part of configs/<id>/config.yaml (bundle/framework-config.ts) takes from the manifest must exist. */
function checkReferenceConfig(plugin: FrameworkPlugin, shared: ReadonlySet<string>, add: Add): void {
  const { config, ports } = plugin.manifest;
  const targets = commentTargets(plugin);
  for (const key of Object.keys(config.comments ?? {})) {
    if (!targets.has(key)) add(plugin.file, `/config/comments/${key}`, 'framework.config', `"${key}" is no section or key of the reference config${didYouMean(key, targets)}`);
  }
  if (config.gateway && !(ports ?? []).some((p) => p.container === config.gateway!.port)) {
    add(plugin.file, '/config/gateway/port', 'framework.config', `${config.gateway.port} is not a container port in ports`);
  }
  (config.providers ?? []).forEach((p, i) => {
    if (!shared.has(p.apiKeyEnv)) add(plugin.file, `/config/providers/${i}/apiKeyEnv`, 'framework.config', `${p.apiKeyEnv} is not a shared variable this framework declares in environment`);
  });
}

/**
 * The programs a health check and command run must be in the image: a manifest lists what it relies on
 * (`binaries`, checked against the upstream Dockerfile at the pinned tag), and the loader holds the
 * health check and command to that list. A shell-form check or a command run through sh needs sh.
 */
function checkBinaries(plugin: ContainerPlugin, add: Add): void {
  const m = plugin.manifest as ContainerManifest;
  // a seeded volume is filled on Kubernetes by the plugin's own image running `sh -c 'cp -R ...'` (emit/kubernetes/workloads.ts)
  const seeded = (m.volumes ?? []).findIndex((v) => v.seed);
  if (seeded >= 0) {
    for (const program of ['sh', 'cp']) {
      if (!(m.binaries ?? []).includes(program)) add(plugin.file, `/volumes/${seeded}/seed`, 'image.binary', `a seeded volume is filled on Kubernetes by ${m.image}:${m.imageTag} itself running sh and cp, and binaries does not list ${program}: add it if the image has it, or drop seed`);
    }
  }
  if (!m.healthcheck) return;
  if (!m.binaries) {
    add(plugin.file, '/healthcheck', 'image.binary', 'list in binaries the programs the image holds that this health check (and command) run, checked in the upstream Dockerfile at the pinned tag');
    return;
  }
  const has = (program: string) => m.binaries!.includes(program) || m.binaries!.includes(program.split('/').pop()!);
  const needs = (program: string, pointer: string, what: string) => {
    if (!has(program)) add(plugin.file, pointer, 'image.binary', `${what} runs ${program}, which binaries does not list for ${m.image}:${m.imageTag}: add it if the image has it, or use a program it has`);
  };
  const test = m.healthcheck.test;
  if (typeof test === 'string') {
    needs('sh', '/healthcheck/test', 'the shell-form health check');
    const first = test.trim().replace(/^(\w+=\S*\s+)+/, '').split(/\s+/)[0];
    if (first && !['[', 'test', 'exit', 'true', 'false', 'command', 'echo', 'printf', 'exec'].includes(first)) needs(first, '/healthcheck/test', 'the health check');
  } else {
    needs(test[0], '/healthcheck/test/0', 'the health check');
  }
  const entry = m.entrypoint ?? m.command;
  const program = Array.isArray(entry) ? entry[0] : undefined;
  if (program === 'sh' || program === '/bin/sh' || program === 'bash' || program === '/bin/bash') needs(program, m.entrypoint ? '/entrypoint/0' : '/command/0', 'the command');
}

/** `login` is README text about a web port; its {{id.VAR}} references name the plugin's own .env variables. */
function checkLogin(plugin: ContainerPlugin, add: Add): void {
  const m = plugin.manifest as ContainerManifest;
  if (m.login === undefined) return;
  if (!(m.ports ?? []).some((p) => p.web)) {
    add(plugin.file, '/login', 'login.ref', 'login tells README readers how to log in to a web port, and this plugin has none (no port with web: true): remove it');
  }
  for (const [ref, target, variable, location] of m.login.matchAll(VALUE_REF)) {
    if (location || target !== plugin.id) {
      add(plugin.file, '/login', 'login.ref', `${ref}: login may name only this plugin's own variables, as {{${plugin.id}.VAR}}`);
    } else if (!(m.environment ?? []).some((e) => e.name === variable && e.value === undefined)) {
      add(plugin.file, '/login', 'login.ref', `${ref}: "${plugin.id}" declares no variable ${variable} kept in .env (one without value)`);
    }
  }
}

/** A database backed up with its own tools names the variables its kind reads, and its image holds the tools. */
function checkBackup(plugin: ServicePlugin, add: Add): void {
  const backup = plugin.manifest.backup;
  if (!backup) return;
  const { tools, needs } = BACKUP_KINDS[backup.kind];
  const declared = new Set((plugin.manifest.environment ?? []).map((e) => e.name));
  for (const field of ['userEnv', 'passwordEnv'] as const) {
    const name = backup[field];
    if (name !== undefined && !declared.has(name)) add(plugin.file, `/backup/${field}`, 'database.backup', `${name} is not a variable this plugin declares in environment`);
    else if (name === undefined && needs.includes(field)) add(plugin.file, '/backup', 'database.backup', `a ${backup.kind} backup needs ${field}: the variable holding the ${field === 'userEnv' ? 'superuser name' : 'superuser password'}`);
  }
  for (const tool of tools.filter((t) => !(plugin.manifest.binaries ?? []).includes(t))) {
    add(plugin.file, '/backup/kind', 'database.backup', `a ${backup.kind} backup runs ${tool} in the container, which binaries does not list for ${plugin.manifest.image}:${plugin.manifest.imageTag}: add it if the image has it`);
  }
}

/** Seconds in a duration like 30s, 2m, 500ms. */
function seconds(duration: string): number {
  const [, n, unit] = /^(\d+)(ms|s|m|h)$/.exec(duration)!;
  return Number(n) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[unit];
}

/** Memory, stop and Docker-socket rules (docs/plugins.md "Hardened and bounded"). */
function checkBounds(plugin: ContainerPlugin, add: Add): void {
  const m = plugin.manifest as ContainerManifest;
  if (m.memoryLimitMB < m.minMemoryMB) {
    add(plugin.file, '/memoryLimitMB', 'memory.limit', `memoryLimitMB ${m.memoryLimitMB} is below minMemoryMB ${m.minMemoryMB}: the limit is the working set upstream recommends, at least the minimum`);
  }
  if ((m.volumes ?? []).length) {
    if (!m.stop) add(plugin.file, '/stop', 'stop.stateful', 'this plugin keeps data on a volume: give stop.gracePeriod (at least 30s, more where upstream says) so it shuts down cleanly');
    else if (seconds(m.stop.gracePeriod) < 30) add(plugin.file, '/stop/gracePeriod', 'stop.stateful', `${m.stop.gracePeriod} is too short for a service with data on a volume: at least 30s`);
  }
  (m.hostMounts ?? []).forEach((h, i) => {
    if (/^\/(var\/)?run\/docker\.sock$/.test(h.source) && !m.hardening.unsupported) {
      add(plugin.file, `/hostMounts/${i}/source`, 'docker.socket', 'the raw Docker socket is root on the host: declare dockerApi (the sections it uses, reached through the stack\'s socket proxy) instead, or explain in hardening.unsupported why it cannot work that way');
    }
  });
}

function checkServiceRefs(plugin: ContainerPlugin, services: Map<string, ServicePlugin>, containers: Map<string, ContainerPlugin>, unloaded: ReadonlyMap<string, string>, add: Add): void {
  const requires = plugin.manifest.requires ?? [];
  requires.forEach((id, i) => {
    if (id === plugin.id) add(plugin.file, `/requires/${i}`, 'ref.self', 'a plugin cannot require itself');
    else if (!services.has(id)) add(plugin.file, `/requires/${i}`, 'ref.unknown', `requires ${missing('service', id, services.keys(), unloaded)}`);
  });
  const own = plugin.manifest.environment ?? [];
  own.forEach((env, i) => {
    if (env.ifPresent !== undefined && !containers.has(env.ifPresent)) {
      add(plugin.file, `/environment/${i}/ifPresent`, 'ref.unknown', `ifPresent names ${missing('plugin', env.ifPresent, containers.keys(), unloaded)}`);
    }
    // a variable may refer to this plugin, what it requires, and the plugin its emission depends on
    const reachable = (target: string) => target === plugin.id || requires.includes(target) || target === env.ifPresent;
    const lookup = (target: string) => (target === plugin.id ? plugin : containers.get(target));
    if (env.default !== undefined) {
      for (const [ref, , , location] of env.default.matchAll(VALUE_REF)) {
        if (location !== 'url') add(plugin.file, `/environment/${i}/default`, 'env.ref', `${ref}: a default may hold only {{url:id}} references (it is written into .env); use value for the others`);
      }
    }
    const text = env.value ?? env.default;
    if (text === undefined) return;
    const where = `/environment/${i}/${env.value !== undefined ? 'value' : 'default'}`;
    for (const [ref, target, variable, location, locationTarget, port] of text.matchAll(VALUE_REF)) {
      if (location) {
        const targetPlugin = lookup(locationTarget);
        if (!reachable(locationTarget) || !targetPlugin) {
          add(plugin.file, where, 'env.ref', `${ref}: "${locationTarget}" is neither this plugin, a service it requires nor its ifPresent plugin; add it to requires`);
        } else if (location === 'port' && !(targetPlugin.manifest.ports ?? []).some((p) => String(p.container) === port)) {
          add(plugin.file, where, 'env.ref', `${ref}: "${locationTarget}" has no container port ${port ?? '(missing: write {{port:id:PORT}})'}`);
        } else if (location !== 'port' && port) {
          add(plugin.file, where, 'env.ref', `${ref}: write {{${location}:${locationTarget}}} without a port`);
        } else if (location === 'url' && !(targetPlugin.manifest.ports ?? []).some((p) => p.web)) {
          add(plugin.file, where, 'env.ref', `${ref}: "${locationTarget}" has no web port, so no URL a browser opens`);
        }
        continue;
      }
      const targetPlugin = reachable(target) ? lookup(target) : undefined;
      const declared = targetPlugin?.manifest.environment?.find((d) => d.name === variable && d.value === undefined);
      if (!targetPlugin) {
        add(plugin.file, where, 'env.ref', `${ref}: "${target}" is neither this plugin, a service it requires nor its ifPresent plugin; add it to requires`);
      } else if (!declared) {
        add(plugin.file, where, 'env.ref', `${ref}: "${target}" declares no variable ${variable} (without value) to refer to`);
      } else if (target !== plugin.id && declared.secret && !declared.client) {
        add(plugin.file, where, 'env.scope', `${ref}: ${variable} is a secret of "${target}" that stays with it (not client: true); use a credential of your own (e.g. databases: for a database user) or one "${target}" marks client`);
      }
    }
  });
  (plugin.manifest.databases ?? []).forEach((db, i) => {
    const server = services.get(db.server);
    if (!requires.includes(db.server)) add(plugin.file, `/databases/${i}/server`, 'database.server', `"${db.server}" is not in requires: add it`);
    else if (server && !server.manifest.databaseServer) add(plugin.file, `/databases/${i}/server`, 'database.server', `"${db.server}" is no database server (it declares no databaseServer)`);
    const password = own.find((e) => e.name === db.passwordEnv);
    if (!password?.secret) add(plugin.file, `/databases/${i}/passwordEnv`, 'database.password', `${db.passwordEnv} must be a secret variable of this plugin (it becomes the role's password)`);
  });
}

function checkCycles(services: ServicePlugin[], add: Add): void {
  const byId = new Map(services.map((s) => [s.id, s]));
  const state = new Map<string, 'visiting' | 'done'>();
  const reported = new Set<string>();
  const visit = (id: string, trail: string[]): void => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(id)), id];
      const key = [...cycle].sort().join();
      if (!reported.has(key)) {
        reported.add(key);
        add(byId.get(id)!.file, '/requires', 'requires.cycle', `requires forms a cycle: ${cycle.join(' -> ')}`);
      }
      return;
    }
    state.set(id, 'visiting');
    for (const dep of byId.get(id)?.manifest.requires ?? []) if (byId.has(dep)) visit(dep, [...trail, id]);
    state.set(id, 'done');
  };
  for (const s of services) visit(s.id, []);
}

function checkPreset(preset: RawCatalogue['presets'][number], services: Map<string, ServicePlugin>, skillPackIds: Set<string>, raw: RawCatalogue, add: Add): void {
  const m = preset.manifest;
  m.services.forEach((id, i) => {
    if (!services.has(id)) add(preset.file, `/services/${i}`, 'ref.unknown', missing('service', id, services.keys(), raw.unloaded));
  });
  m.skills.forEach((id, i) => {
    if (!skillPackIds.has(id)) add(preset.file, `/skills/${i}`, 'ref.unknown', missing('skill pack', id, skillPackIds, raw.unloaded));
  });
  // what the preset holds once requires are followed
  const held = new Set<string>();
  // what a plugin that did not load requires is unknown: its needs are not judged (its errors come first)
  let unknowable = false;
  const follow = (id: string) => {
    if (raw.unloaded.has(id)) unknowable = true;
    if (held.has(id) || !services.has(id)) return;
    held.add(id);
    for (const dep of services.get(id)!.manifest.requires ?? []) follow(dep);
  };
  m.services.forEach(follow);
  m.skills.forEach((packId, i) => {
    const pack = raw.skillPacks.find((p) => p.id === packId);
    for (const need of pack?.manifest.requiredServices ?? []) {
      if (!held.has(need) && !unknowable) add(preset.file, `/skills/${i}`, 'preset.inconsistent', `skill pack "${packId}" needs service "${need}", which the preset does not hold: add it to services`);
    }
  });
  const pairs = new Set<string>();
  for (const id of held) {
    for (const other of services.get(id)!.manifest.conflictsWith ?? []) {
      if (held.has(other)) pairs.add([id, other].sort().join('" and "'));
    }
  }
  for (const pair of pairs) add(preset.file, '/services', 'preset.inconsistent', `services "${pair}" conflict: keep one`);
}

function duplicates(values: string[], report: (value: string, index: number) => void): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (seen.has(v)) report(v, i);
    seen.add(v);
  });
}
