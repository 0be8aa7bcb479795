// Bundle-level files rendered from templates/ (README, .env.example, scripts, installers, native
// installers). This module prepares their one shared context from the stack model.
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { LOCAL_MODEL_VARIABLE } from '../catalogue/rules.js';
import type { ContainerPlugin, FrameworkPlugin, NativeRecipe, ProxyPlugin, ServicePlugin } from '../catalogue/types.js';
import { compileTemplate, renderTemplate, renderTemplateChunks, templateErrorMessage, type CompiledTemplate } from '../templating.js';
import { flattened, joinedChunks } from '../text-chunks.js';
import { perObject, perString } from '../memo.js';
import { deepFreeze } from '../freeze.js';
import { isPublicDomain } from '../model/build-model.js';
import { proxyFilePath, volumeNames } from '../model/layout.js';
import { imageVariable } from '../model/env-names.js';
import { dotenvValue, psQuote, shellQuote } from '../emit/escape.js';
import { BACKUP_KEEP_DEFAULT, BACKUP_KEEP_VARIABLE, HELPER_IMAGE } from '../model/helper-image.js';
import {
  ACME_CA_UNREACHABLE, ACME_CA_VARIABLE, BIND_VARIABLE, NATIVE_BIND_VARIABLE, nativeConfigPath, nativeSkillsDir, nativeStateDir, PROXY_PASSWORD_VARIABLE, PROXY_USER_VARIABLE, type StackMember, type StackModel,
} from '../model/model.js';
import { bashValue, nativeEnvironment, psValue, type NativeVariable } from '../emit/bare-metal/native-env.js';
import { execArguments } from './framework-config.js';
import { AUTH_FILE_FORMAT } from './proxy-auth.js';
import { SOCKET_PROXY_SERVICE } from '../model/socket-proxy.js';
import { envGroups } from './env-groups.js';
import { databaseRows, memberRows, routeRows, routeUrls, urlRows } from './member-rows.js';
import { bindableDomain, bindDomain, DOMAIN_PLACEHOLDER, domainLeftOut } from '../cache/late-binding.js';
import { LOCAL_MODEL_SERVER_VARIABLE, wiredServers } from '../model/model-servers.js';
import { imagePins } from './provenance.js';
import { NETWORK } from '../emit/compose/compose.js';

/** Scripts get mode 0755 in the archive. */
export const SCRIPT_FILES = ['scripts/lib.sh', 'scripts/start.sh', 'scripts/stop.sh', 'scripts/update.sh', 'scripts/backup.sh', 'scripts/status.sh'];

const TEMPLATE_FILES = ['README.md', 'env.example', 'install.sh', 'install.ps1', 'native.sh', ...SCRIPT_FILES];

/**
 * Pieces a file writes once per member or variable (templates/fragments/<name>.eta). A fragment sees only
 * `it.item` and the escaping helpers, never the stack: so its text is a function of the item, and is kept by
 * the item where that is frozen (the model hands out one frozen object per fact wherever a fact repeats from
 * stack to stack: build-model.ts). A new selection then writes only what is new in it.
 */
const ENV_GROUP_FRAGMENT = 'env-group';
const FRAGMENT_FILES = [ENV_GROUP_FRAGMENT, 'readme-member', 'readme-url', 'readme-route', 'readme-database', 'start-url', 'lib-secret'];

/** A fragment's text of an item; `late`: it holds the domain's placeholder; `pins`: its image pins, once asked for. */
interface KeptFragment { readonly text: string; readonly late: boolean; pins?: Readonly<Record<string, string>> }

export class BundleTemplates {
  private readonly templates = new Map<string, CompiledTemplate>();
  private readonly fragments = new Map<string, { template: CompiledTemplate; kept: WeakMap<object, KeptFragment> }>();

  /**
   * `keep`: fragments are kept by their items, and the rows that hold the stack's domain are made with the
   * domain's placeholder and bound after (member-rows.ts); without it (a generator without caches) each
   * fragment is written from the real values, which the tests compare with a kept render.
   */
  constructor(dir: string, private readonly keep = true) {
    for (const name of TEMPLATE_FILES) this.templates.set(name, compileFile(path.join(dir, `${name}.eta`)));
    for (const name of FRAGMENT_FILES) {
      this.fragments.set(name, { template: compileFile(path.join(dir, 'fragments', `${name}.eta`)), kept: new WeakMap() });
    }
  }

  /**
   * it.fragment(name, item) in a template of a stack whose domain (if it binds late) is `domain`: the fragment's
   * text of the item. Given `pins`, the image pins of each `.env.example` group it writes go there (provenance.ts
   * imagePins of the group's text: a group's lines are whole lines of the file, so the file's pins are its
   * groups' in order), kept with the group's text where that is kept.
   */
  private fragmentWriter(domain: string | undefined, pins?: Record<string, string>): (name: string, item: object) => string {
    return (name, item) => {
      const fragment = this.fragments.get(name);
      if (!fragment) throw new Error(`no bundle fragment named ${name} (templates/fragments/)`);
      let kept = fragment.kept.get(item);
      if (kept === undefined) {
        // one flat string: a file joins hundreds of fragments, and reading a join costs a step per piece
        const made = flattened(renderTemplate(fragment.template, { ...FRAGMENT_HELPERS, item }));
        kept = { text: made, late: made.includes(DOMAIN_PLACEHOLDER) };
        if (this.keep && Object.isFrozen(item)) fragment.kept.set(item, kept);
      }
      const bound = domain !== undefined && kept.late;
      const text = bound ? bindDomain(kept.text, domain) : kept.text;
      if (pins && name === ENV_GROUP_FRAGMENT) Object.assign(pins, bound ? imagePins(text) : (kept.pins ??= imagePins(text)));
      return text;
    };
  }

  /**
   * The bundle files of a model; `only` names the few another target reuses (the rest are not rendered).
   * Given `chunks`, a file that comes out in more than one chunk (text-chunks.ts) has its chunks put there;
   * given `pins`, the image pins of `.env.example` (provenance.ts imagePins of its text) are put there;
   * `rendered` is told each file (its chunks, or its text) as soon as it is final, before the next is rendered.
   */
  render(
    model: StackModel, only?: readonly string[], chunks?: Map<string, readonly string[]>, pins?: Record<string, string>,
    rendered?: (file: string, content: string | readonly string[]) => void,
  ): Map<string, string> {
    // each native part's environment, built once and written as PowerShell (install.ps1) and bash (native/<id>.sh)
    const nativeEnvs = new Map(model.members.filter((m) => m.placement === 'native').map((m) => [m.plugin.id, nativeEnvironment(model, m)]));
    // the domain the rows leave out (bound into their text), where it binds late
    const domain = this.keep && model.options.domain !== undefined && bindableDomain(model.options.domain) ? model.options.domain : undefined;
    const context = { ...bundleContext(model, nativeEnvs, domain), fragment: this.fragmentWriter(domain, pins) };
    const out = new Map<string, string>();
    const put = (file: string, template: string, data: object = context) => {
      if (only && !only.includes(file)) return;
      const fn = this.templates.get(template)!;
      if (!chunks) {
        const text = renderTemplate(fn, data);
        out.set(file, text);
        rendered?.(file, text);
        return;
      }
      const parts = renderTemplateChunks(fn, data);
      out.set(file, joinedChunks(parts));
      if (parts.length > 1) chunks.set(file, parts);
      rendered?.(file, parts.length > 1 ? parts : out.get(file)!);
    };
    put('README.md', 'README.md');
    put('.env.example', 'env.example');
    for (const script of SCRIPT_FILES) put(script, script);
    if (model.options.deployment === 'bare-metal') {
      put('install.sh', 'install.sh');
      put('install.ps1', 'install.ps1');
      for (const member of model.members.filter((m) => m.placement === 'native')) {
        put(`native/${member.plugin.id}.sh`, 'native.sh', nativeContext(model, member, nativeEnvs.get(member.plugin.id)!, context));
      }
    }
    return out;
  }
}

function compileFile(file: string): CompiledTemplate {
  try {
    return compileTemplate(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`bundle template ${file} does not compile: ${templateErrorMessage(e)}`);
  }
}

/** What a fragment may use besides its item: escaping and formatting, nothing of the stack. */
const FRAGMENT_HELPERS = { sh: shellQuote, ps: psQuote, dotenv: dotenvValue, oneLine: (text: string) => oneLine(text) };

function bundleContext(model: StackModel, nativeEnvs: ReadonlyMap<string, NativeVariable[]>, lateDomain: string | undefined) {
  const leftOut = domainLeftOut(lateDomain);
  const urlsOfRoutes = routeUrls(model, leftOut);
  const { options, resolution } = model;
  // the per-member lists, from each plugin's facts (read off its manifest once), in one pass
  const volumes: string[] = [];
  const dumps: NonNullable<PluginFacts['dump']>[] = [];
  const imageVariables: PluginFacts['imageVariable'][] = [];
  const hostMounts: PluginFacts['hostMounts'][number][] = [];
  const unhardened: NonNullable<PluginFacts['unhardened']>[] = [];
  const rootSockets: string[] = [];
  const internet: NonNullable<PluginFacts['internet']>[] = [];
  for (const m of model.members) {
    const facts = pluginFacts(m.plugin);
    if (m.placement === 'container') {
      volumes.push(...facts.volumes);
      if (facts.dump) dumps.push(facts.dump);
      imageVariables.push(facts.imageVariable);
      if (facts.unhardened) unhardened.push(facts.unhardened);
    }
    hostMounts.push(...facts.hostMounts);
    if (facts.rootSocket) rootSockets.push(m.plugin.id);
    if (facts.internet) internet.push(facts.internet);
  }
  if (model.dockerApiUsers.length) imageVariables.push(SOCKET_PROXY_IMAGE_VARIABLE);
  const proxy = resolution.proxy;
  // local model servers of the stack (services tagged local-models)
  const modelServers = model.members.filter((m) => m.plugin.kind === 'service' && (m.plugin.manifest.tags ?? []).includes('local-models'));
  const interactive = model.members
    .filter((m) => m.placement === 'container' && m.plugin.kind === 'framework' && (m.plugin as FrameworkPlugin).manifest.interactive)
    .map((m) => {
      return { id: m.plugin.id, name: m.plugin.manifest.name, command: execArguments(m.plugin.id, (m.plugin as FrameworkPlugin).manifest.interactive!) };
    });
  return {
    stack: { name: options.name, domain: options.domain ?? null, deployment: options.deployment, gpu: options.gpu, platform: options.platform ?? null },
    primary: { id: resolution.primary.id, name: resolution.primary.manifest.name },
    companions: resolution.companions.map((c) => ({ id: c.id, name: c.manifest.name })),
    serviceCount: resolution.services.length,
    memory: { needed: resolution.estimatedMemoryMB, limit: resolution.memoryLimitMB },
    members: memberRows(model),
    ...envGroups(model, leftOut),
    volumes,
    // databases scripts/backup.sh --live dumps with their own tools inside their containers, and their volumes
    dumps,
    helperImage: HELPER_IMAGE,
    // each container service and the .env variable naming its image (scripts/update.sh puts them back on a rollback)
    imageVariables,
    backupKeep: { variable: BACKUP_KEEP_VARIABLE, default: BACKUP_KEEP_DEFAULT },
    urls: urlRows(model, urlsOfRoutes),
    routes: routeRows(model, urlsOfRoutes, leftOut),
    proxy: proxy ? {
      id: proxy.id,
      name: proxy.manifest.name,
      automaticHttps: Boolean(proxy.manifest.automaticHttps),
      files: (proxy as ProxyPlugin).manifest.configFiles.filter((f) => !f.https || model.https).map((f) => proxyFilePath(proxy as ProxyPlugin, f.file)),
      public: isPublicDomain(options.domain),
    } : null,
    https: model.https,
    // scripts/backup.sh verify's scratch copy: the network it makes internal (no way out), and the ACME directory its
    // proxy gets instead of the stack's
    verify: { network: NETWORK, acme: model.https ? { variable: ACME_CA_VARIABLE, directory: ACME_CA_UNREACHABLE } : null },
    // scripts/start.sh writes the basic-auth file from .env before the proxy starts
    proxyAuth: proxy && model.proxyAuth ? {
      file: proxyFilePath(proxy as ProxyPlugin, (proxy as ProxyPlugin).manifest.basicAuth.file),
      image: (proxy as ProxyPlugin).manifest.basicAuth.hasher.image,
      command: (proxy as ProxyPlugin).manifest.basicAuth.hasher.command,
      userVariable: PROXY_USER_VARIABLE,
      passwordVariable: PROXY_PASSWORD_VARIABLE,
      printf: AUTH_FILE_FORMAT[(proxy as ProxyPlugin).manifest.basicAuth.format],
    } : null,
    frameworks: model.members.filter((m) => m.plugin.kind === 'framework').map((m) => {
      const fw = (m.plugin as FrameworkPlugin).manifest;
      const servers = wiredServers(model.members, m);
      const wiredTo = servers[0];
      return {
        id: m.plugin.id,
        name: fw.name,
        role: m.role ?? 'primary',
        placement: m.placement,
        keys: fw.firstRun.keys,
        // the stack's model server it answers with when no key is set (its start wires it), with how to get the model
        local: wiredTo ? localModels(wiredTo, model, wiredTo.plugin.id === 'ollama' ? fw.firstRun.localModelVariables ?? [LOCAL_MODEL_VARIABLE] : serverModelVariables(wiredTo, fw.firstRun.localModelVariables)) : null,
        // several servers it can use: which one answers, and how to pick another (a native part reads .env when
        // native/<id>.sh, or install.ps1 where it has a Windows recipe, writes its unit's environment or a CLI's
        // settings, not at scripts/start.sh)
        choice: servers.length > 1
          ? `it uses ${wiredTo!.plugin.manifest.name} first (its order: ${servers.map((x) => x.plugin.manifest.name).join(', ')}); set \`${LOCAL_MODEL_SERVER_VARIABLE}\` in \`.env\` to ${servers.map((x) => `\`${x.plugin.id}\``).join(' or ')} and run ${m.placement === 'native' ? `\`sudo native/${m.plugin.id}.sh\`${fw.native.windows ? ' (on Windows `install.ps1`)' : ''}` : '`scripts/start.sh`'} again to switch`
          : null,
        // a model server is in the stack but this framework is not wired to it: what holds instead
        localNote: modelServers.some((x) => !servers.includes(x)) ? fw.firstRun.localModelsNote : null,
        withoutKey: fw.firstRun.withoutKey ?? null,
        // <stack> in a step is this stack's name (paths under /etc/stackwright/<stack>/ of a native unit)
        steps: (m.placement === 'native' && fw.firstRun.native ? fw.firstRun.native : fw.firstRun.steps).map((step) => step.replaceAll('<stack>', options.name)),
        skills: fw.skills,
        url: model.publicUrls.get(m.plugin.id) ?? null,
      };
    }),
    databases: databaseRows(model),
    nativeBindVariable: NATIVE_BIND_VARIABLE,
    bindVariable: BIND_VARIABLE,
    skills: resolution.skillPacks.map((p) => ({ id: p.id, name: p.manifest.name, skills: p.skills.map((s) => s.id) })),
    interactive,
    hostMounts,
    natives: model.members.filter((m) => m.placement === 'native').map((m) => {
      const native = (m.plugin.manifest as { native?: NativeRecipe }).native!;
      return {
        id: m.plugin.id, name: m.plugin.manifest.name, windows: native.windows ?? null, windowsRun: native.windowsRun ?? null,
        // a CLI (no run command) only installs; a daemon also needs a way to start on Windows
        windowsReady: Boolean(native.windows && (!native.run || native.windowsRun)),
        // the variables the process sees, under the names it reads (as native/<id>.sh gives them)
        env: nativeEnvs.get(m.plugin.id)!.map((v) => ({ name: v.name, value: psValue(v.parts) })),
      };
    }),
    portMoves: model.portMoves,
    // public: the proxy's ports for a public domain, on every interface (no address in the compose file)
    hostPorts: model.ports.map((p) => ({ variable: p.variable, host: p.host, protocol: p.protocol, public: p.public })),
    hardened: model.options.hardened,
    unhardened,
    rootSockets,
    socketProxy: model.dockerApiUsers.map((p) => ({ id: p.id, sections: p.manifest.dockerApi!.sections, write: p.manifest.dockerApi!.write })),
    internet,
    // PRESET_OVERRIDES among them names the fields a preset made the generator ignore
    warnings: resolution.warnings,
    sh: shellQuote,
    ps: psQuote,
    dotenv: dotenvValue,
    oneLine,
  };
}

/** What the bundle files list of a plugin wherever it is in a stack, read off its manifest once (frozen: shared by every stack). */
const pluginFacts = perObject((plugin: ContainerPlugin) => {
  const m = plugin.manifest;
  const backup = plugin.kind === 'service' ? (plugin as ServicePlugin).manifest.backup : undefined;
  return deepFreeze({
    volumes: volumeNames(plugin),
    // (a container's) the .env variable naming its image: scripts/update.sh puts them back on a rollback
    imageVariable: { service: plugin.id, variable: imageVariable(plugin.id) },
    dump: backup ? { service: plugin.id, ...backup, volumes: volumeNames(plugin) } : null,
    hostMounts: (m.hostMounts ?? []).map((h) => ({ plugin: plugin.id, ...h })),
    unhardened: m.hardening.unsupported ? { id: plugin.id, why: m.hardening.unsupported } : null,
    rootSocket: (m.hostMounts ?? []).some((h) => /docker\.sock$/.test(h.source)),
    internet: m.internet ? { id: plugin.id, name: m.name, what: m.internet } : null,
  });
});
type PluginFacts = ReturnType<typeof pluginFacts>;
const SOCKET_PROXY_IMAGE_VARIABLE = Object.freeze({ service: SOCKET_PROXY_SERVICE, variable: imageVariable(SOCKET_PROXY_SERVICE) });

/**
 * Text as one line, each run of white space one space. Most descriptions already are: they are given back
 * as they are, not copied (a large stack's .env.example has thousands of them). The same catalogue
 * descriptions come by in every stack: each is tested once.
 */
export const oneLine = perString(20_000, (text) => (/\s\s|[^\S ]/.test(text) ? text.replace(/\s+/g, ' ') : text));

/** Context of native/<id>.sh: the recipe, and the environment mapped from .env for the host. */
function nativeContext(model: StackModel, member: StackMember, env: NativeVariable[], shared: ReturnType<typeof bundleContext>) {
  const plugin = member.plugin;
  const native = (plugin.manifest as { native?: NativeRecipe }).native!;
  const fw = plugin.kind === 'framework' ? (plugin as FrameworkPlugin).manifest : undefined;
  const unit = `stackwright-${model.options.name}-${plugin.id}`;
  const stateDir = nativeStateDir(model.options.name, plugin.id);
  return {
    ...shared,
    plugin: { id: plugin.id, name: plugin.manifest.name, description: plugin.manifest.description },
    unit,
    stateDir,
    install: native.install.trimEnd(),
    run: native.run ?? null,
    // ~ is the service user's home: the state folder
    config: fw ? { path: nativeConfigPath(model.options.name, plugin as FrameworkPlugin) } : null,
    skillsDir: fw ? nativeSkillsDir(model.options.name, plugin as FrameworkPlugin) : null,
    env: env.map((v) => ({ name: v.name, value: bashValue(v.parts) })),
  };
}

/**
 * The stack's model server a framework answers with when no key is set, the models it uses there (.env
 * variables the framework declares shared, OLLAMA_MODEL by default) and how a user gets them onto the server:
 * nothing pulls them behind the user's back, so Ollama pulls each once.
 */
function localModels(server: StackMember, model: StackModel, variables: string[]) {
  const named = variables.map((v) => `\`${v}\``).join(' and ');
  const names = variables.map((v) => model.env.find((e) => e.key === v)?.example || '<model>');
  const pull = (name: string) => (server.placement === 'native'
    ? `\`OLLAMA_HOST=<${NATIVE_BIND_VARIABLE} from .env>:11434 ollama pull ${name}\``
    : `\`docker compose exec ollama ollama pull ${name}\``);
  const load = (server.plugin as ServicePlugin).manifest.modelServer?.load;
  return {
    id: server.plugin.id,
    name: server.plugin.manifest.name,
    variables,
    models: `the model${variables.length > 1 ? 's' : ''} in ${named}`,
    pull: server.plugin.id !== 'ollama'
      ? load ?? `load the model${variables.length > 1 ? 's' : ''} named in ${named} into ${server.plugin.manifest.name}`
      : `pull ${variables.length > 1 ? 'them' : 'it'} once: ${names.map(pull).join(' and ')}${server.placement === 'native' ? ' (with the ollama binary native/ollama.sh installed)' : ''}`,
  };
}

/**
 * The .env variables naming what a framework uses on a server with `modelServer`: its <PREFIX>_MODEL, and
 * its <PREFIX>_EMBED_MODEL for a framework that also needs an embedding model (two Ollama variables).
 */
function serverModelVariables(server: StackMember, ollamaVariables: string[] | undefined): string[] {
  const spec = (server.plugin as ServicePlugin).manifest.modelServer!;
  return (ollamaVariables?.length ?? 1) > 1 && spec.embedModel ? [spec.model, spec.embedModel] : [spec.model];
}
