// Files rendered from plugin templates: framework configs, service config files, proxy configs, and the
// skill files of the selected packs. The template context is the closed set docs/plugins.md lists.
import type { ContainerPlugin, FrameworkPlugin, ProxyPlugin, ServicePlugin, Skill, SkillPackPlugin } from '../catalogue/types.js';
import { ApiError } from '../errors.js';
import { compileTemplate, failingLine, renderTemplate, templateErrorMessage, type CompiledTemplate } from '../templating.js';
import { addressOf, type Viewer } from '../model/addresses.js';
import { frameworkConfigPath, proxyFilePath, serviceFilePath } from '../model/layout.js';
import { configString, yamlScalar } from '../emit/escape.js';
import { clientKeys, nativeSkillsDir, portsOf, type StackMember, type StackModel } from '../model/model.js';
import { lockedAuthFile } from './proxy-auth.js';
import { frameworkHome, referenceConfig } from './framework-config.js';
import { recordOf } from '../record-of.js';
import { deepFreeze } from '../freeze.js';
import { KeptSlots, perObject } from '../memo.js';
import { fileHash } from './provenance.js';

/** A member as the templates see it (it.services, it.self): frozen, the same object in every stack where it is the same. */
interface ServiceEntry {
  id: string;
  name: string;
  kind: string;
  category: string | null;
  host: string;
  ports: readonly { container: number; host: number | null; web: boolean }[];
  url: string | null;
  /** where a person's browser opens its first web port (through the proxy when there is one), or null */
  publicUrl: string | null;
  secrets: readonly string[];
  /** its Prometheus metrics endpoint (container port, path) when it declares one: the scrapers' jobs */
  metrics: { port: number; path: string } | null;
}

/** Where each member is reached from, for a reader in a container or on the host. */
function serviceEntries(model: StackModel, viewer: Viewer): ServiceEntry[] {
  const entries: ServiceEntry[] = [];
  for (const m of model.members) if (m.plugin.kind !== 'proxy') entries.push(serviceEntry(model, m, viewer));
  return entries;
}

/**
 * A member's entry, frozen, kept per plugin and viewer and given back while its address, host ports and public URL
 * are the same: what is built of it (a reference file's item, framework-config.ts) is then the same object too.
 */
function serviceEntry(model: StackModel, m: StackMember, viewer: Viewer): ServiceEntry {
  // a plugin has a port or two: a search of its published ports costs less than a map of them
  const published = portsOf(model, m.plugin.id);
  const hostOf = (container: number) => published.find((q) => q.container === container)?.host ?? null;
  const address = addressOf(model, m, viewer);
  const publicUrl = model.publicUrls.get(m.plugin.id) ?? null;
  const last = keptEntries.get(m.plugin, viewer);
  if (last !== undefined && last.host === address.host && last.url === address.url && last.publicUrl === publicUrl
    && last.ports.every((p) => p.host === hostOf(p.container))) return last;
  return keptEntries.keep(m.plugin, viewer, {
    id: m.plugin.id,
    name: m.plugin.manifest.name,
    kind: m.plugin.kind,
    category: m.plugin.kind === 'service' ? (m.plugin as ServicePlugin).manifest.category : null,
    host: address.host,
    ports: Object.freeze((m.plugin.manifest.ports ?? []).map((p) => Object.freeze({ container: p.container, host: hostOf(p.container), web: p.web ?? false }))),
    url: address.url,
    publicUrl,
    secrets: clientKeys(m.plugin),
    metrics: m.plugin.kind === 'service' ? (m.plugin as ServicePlugin).manifest.metrics ?? null : null,
  });
}
const keptEntries = new KeptSlots<ContainerPlugin, ServiceEntry>();

/** Where the shared context keeps its entries by id: a symbol, so no template reads or lists it. */
const ENTRIES = Symbol('entries by id');

/** What every template of one stack sees alike, for readers in containers or on the host. */
function sharedContext(model: StackModel, placement: StackMember['placement']) {
  const services = serviceEntries(model, placement);
  const byId = new Map(services.map((s) => [s.id, s]));
  return {
    stack: { name: model.options.name, domain: model.options.domain ?? null, deployment: model.options.deployment },
    // whether a reverse proxy is in front, and whether it serves HTTPS
    proxy: model.resolution.proxy ? { id: model.resolution.proxy.id, name: model.resolution.proxy.manifest.name, https: model.https } : null,
    services,
    has: (id: string) => byId.has(id),
    /** each member's entry by id (a template's `self`), not a property of the context templates see */
    [ENTRIES]: byId,
    routes: model.routes,
    https: model.https,
    publicUrls: recordOf(model.publicUrls),
    databases: model.databases,
    proxyAuth: model.proxyAuth && model.resolution.proxy
      ? { file: model.resolution.proxy.manifest.basicAuth.file, format: model.resolution.proxy.manifest.basicAuth.format }
      : null,
    yaml: yamlScalar,
    str: configString,
  };
}

/** The context of one plugin's template: the shared part plus what depends on the plugin. */
function pluginContext(shared: ReturnType<typeof sharedContext>, member: StackMember, skills: ReturnType<typeof skillsContext>) {
  return {
    ...shared,
    self: shared[ENTRIES].get(member.plugin.id) ?? null,
    skills,
  };
}

type SkillsContext = readonly Readonly<{ id: string; name: string; dir: string; skills: readonly Readonly<{ id: string; name: string; description: string }>[] }>[];

/**
 * The last skill packs context built for each framework (and for the services, under SERVICE_SKILLS), with the
 * packs and the folder it was built from: a stack whose packs and folder are the same gets the same
 * frozen array, so what is built from it (the reference file's skills section) is kept by that array
 * (framework-config.ts). A hot reload's packs are new objects, so nothing of an older catalogue comes back.
 */
const keptSkills = new WeakMap<object, { packs: readonly SkillPackPlugin[]; base: string; value: SkillsContext }>();
const SERVICE_SKILLS = {};

/** The skill packs as a member's templates see them: the same for every member but a framework (its own folder). */
function skillsContext(model: StackModel, member: StackMember): SkillsContext {
  const packs = model.resolution.skillPacks;
  const base = skillsBase(model, member);
  const owner = member.plugin.kind === 'framework' ? member.plugin : SERVICE_SKILLS;
  const kept = keptSkills.get(owner);
  if (kept && kept.base === base && kept.packs.length === packs.length && kept.packs.every((p, i) => samePack(p, packs[i]))) return kept.value;
  const value = deepFreeze(packs.map((p) => ({
    id: p.id,
    name: p.manifest.name,
    dir: `${base}/${p.id}`,
    skills: p.skills.map((s) => ({ id: s.id, name: s.name, description: s.description })),
  })));
  keptSkills.set(owner, { packs: [...packs], base, value });
  return value;
}

/** The same pack with the same skills: resolve.ts gives a pack of fewer skills (those its optional services allow) as a new object each time. */
function samePack(a: SkillPackPlugin, b: SkillPackPlugin): boolean {
  return a === b || (a.manifest === b.manifest && a.id === b.id && a.skills.length === b.skills.length && a.skills.every((skill, i) => skill === b.skills[i]));
}

/** The folder a member finds the skill packs in, one sub-folder a pack. */
function skillsBase(model: StackModel, member: StackMember): string {
  if (member.plugin.kind !== 'framework') return 'skills';
  const fw = member.plugin as FrameworkPlugin;
  return member.placement === 'native' ? nativeSkillsDir(model.options.name, fw) : fw.manifest.skillsTarget;
}

function skillsReadme(model: StackModel): string {
  const packs = model.resolution.skillPacks.map((p) => `- \`${p.id}/\`: ${p.manifest.name} (${p.skills.map((s) => s.id).join(', ')})`);
  return ['# Skills', '', 'Skill packs of this stack, one folder per skill with its SKILL.md. The framework reads this folder',
    '(mounted read-only in its container); add your own skill folders here and restart the framework.', '',
    ...(packs.length ? packs : ['No skill pack was selected.']), ''].join('\n');
}

/** One plugin file a stack renders: whose, from which template, the bundle path it becomes, what it sees beyond the common context. */
export interface TemplateJob {
  member: StackMember;
  /** the plugin's template, or null for a file built in code alone (a framework config without a section of its own) */
  template: string | null;
  path: string;
  extra: Record<string, unknown>;
  /** the file around the template's text, built in code from the same context (a framework's reference config) */
  around?: (context: ReturnType<typeof pluginContext>, own: string) => string;
}

/** Every plugin template the stack renders, in bundle order (the one list the renderer and the load check share). */
export function templateJobs(model: StackModel): TemplateJob[] {
  const jobs: TemplateJob[] = [];
  // one function for the list, not one per member: most members have no file
  const job = (member: StackMember, template: string | null, path: string, extra: Record<string, unknown> = {}, around?: TemplateJob['around']) => jobs.push({ member, template, path, extra, around });
  for (let i = 0; i < model.members.length; i++) {
    const member = model.members[i];
    const p = member.plugin;
    if (p.kind === 'framework') {
      // the shared part of every framework's reference config is built in code; the template adds its own section
      const fw = p as FrameworkPlugin;
      const role = member.role ?? 'primary';
      const native = member.placement === 'native';
      job(member, fw.manifest.config.template ?? null, frameworkConfigPath(p.id), { framework: { id: p.id, name: fw.manifest.name, role, home: frameworkHome(fw.manifest, native, model.options.name) } },
        (context, own) => referenceConfig(fw, role, native, context) + (own ? `\n${own}` : ''));
    } else if (p.kind === 'service') {
      const m = (p as ServicePlugin).manifest;
      // the shared scrape configuration (catalogue/scrape-config.ts) also sees what differs between scrapers
      const scraper = (template: string) => (m.scrapeConfig?.template === template ? { scraper: { evaluationInterval: m.scrapeConfig.evaluationInterval ?? null } } : {});
      for (const f of m.files ?? []) job(member, f.template, serviceFilePath(p.id, f.template), scraper(f.template));
      // the setup script exists only while some consumer has a database on this server; it sees the
      // server's own extensions (a family's script is shared, so they are data: catalogue/database-families.ts)
      if (m.databaseServer && model.databases.some((d) => d.server === p.id)) {
        job(member, m.databaseServer.setup, serviceFilePath(p.id, m.databaseServer.setup), { server: { extensions: m.databaseServer.extensions ?? [] } });
      }
    } else {
      const proxy = p as ProxyPlugin;
      // a file marked https is written only for a stack with a public domain
      for (const f of proxy.manifest.configFiles.filter((c) => !c.https || model.https)) job(member, f.template, proxyFilePath(proxy, f.file));
    }
  }
  return jobs;
}

/**
 * A plugin template that throws while rendering: a fault of the plugin, not of the request, so it is a
 * 500 with its own code that names the plugin, the template and the line (docs/decisions.md).
 */
export class TemplateRenderError extends ApiError {
  constructor(readonly plugin: ContainerPlugin, readonly template: string, readonly line: number | undefined, readonly reason: string) {
    super('PLUGIN_TEMPLATE_ERROR', `the template ${template} of ${plugin.kind} "${plugin.id}" failed${line ? ` at line ${line}` : ''}: ${reason}. `
      + 'This is a fault of that plugin, not of the request: the operator finds it with `stackwright lint`; until it is fixed, a stack without that plugin (or with other options) generates', {
      details: { plugin: plugin.id, kind: plugin.kind, template, ...(line ? { line } : {}) },
    });
  }
}

/** A bound renderer of one stack's templates: the common context is built once per placement. */
function stackRenderer(model: StackModel, compiled: (plugin: ContainerPlugin, name: string) => CompiledTemplate) {
  const shared = new Map<StackMember['placement'], ReturnType<typeof sharedContext>>();
  const sharedFor = (placement: StackMember['placement']) => {
    let context = shared.get(placement);
    if (!context) shared.set(placement, (context = sharedContext(model, placement)));
    return context;
  };
  // built once for every member but the frameworks (a large stack has many templates and many packs)
  let serviceSkills: ReturnType<typeof skillsContext> | undefined;
  const skillsFor = (member: StackMember) => (member.plugin.kind === 'framework' ? skillsContext(model, member) : (serviceSkills ??= skillsContext(model, member)));
  return (job: TemplateJob): string => {
    const context = pluginContext(sharedFor(job.member.placement), job.member, skillsFor(job.member));
    const data = { ...context, ...job.extra };
    let own = '';
    if (job.template !== null) {
      try {
        own = renderTemplate(compiled(job.member.plugin, job.template), data);
      } catch (e) {
        const plugin = job.member.plugin;
        throw new TemplateRenderError(plugin, job.template, failingLine(plugin.templates.get(job.template)!, data), templateErrorMessage(e));
      }
    }
    return job.around ? job.around(context, own) : own;
  };
}

/** Compiles each plugin template once, for renders over many stacks. */
export function templateCompiler(): (plugin: ContainerPlugin, name: string) => CompiledTemplate {
  const compiled = new Map<string, CompiledTemplate>();
  return (plugin, name) => {
    const key = `${plugin.kind}/${plugin.id}/${name}@${plugin.hash}`;
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = compileTemplate(plugin.templates.get(name)!)));
    return fn;
  };
}

/**
 * Renders every plugin template of the stack without the fragment cache, reporting each failure instead
 * of stopping at the first (the loader's check: catalogue/template-check.ts).
 */
export function renderEachTemplate(model: StackModel, compiled: ReturnType<typeof templateCompiler>, failed: (job: TemplateJob, error: TemplateRenderError) => void): void {
  const render = stackRenderer(model, compiled);
  for (const job of templateJobs(model)) {
    try {
      render(job);
    } catch (e) {
      if (!(e instanceof TemplateRenderError)) throw e;
      failed(job, e);
    }
  }
}

/**
 * Renders a stack's plugin files. Not through the fragment cache (issue 36): a template may read any of
 * the stack, so its key was the whole stack, which a new selection (or a new name: every shipped template
 * writes it) never repeats; and keyed by what each template reads, a lookup cost about what a render of
 * these templates costs (docs/architecture.md, Benchmarks). Rendering them each time costs less than the
 * key did, and leaves the cache's room to the compose blocks.
 */
export class PluginFileRenderer {
  private readonly compiled = templateCompiler();

  /** bundle path → content of every plugin-rendered file of the stack */
  render(model: StackModel): Map<string, string> {
    const files = new Map<string, string>();
    const render = stackRenderer(model, this.compiled);
    for (const job of templateJobs(model)) files.set(job.path, render(job));
    const proxy = model.resolution.proxy;
    if (proxy && model.proxyAuth) files.set(proxyFilePath(proxy, proxy.manifest.basicAuth.file), lockedAuthFile(proxy.manifest.basicAuth.format));
    for (const pack of model.resolution.skillPacks) {
      for (const skill of pack.skills) files.set(skillFile(pack, skill), skill.body);
    }
    // the framework containers bind-mount skills/: it must exist even with no pack selected
    files.set('skills/README.md', skillsReadme(model));
    return files;
  }
}

function skillFile(pack: SkillPackPlugin, skill: Skill): string {
  return `skills/${pack.id}/${skill.id}/SKILL.md`;
}

/**
 * The stack's files that are the catalogue's own text (each skill's SKILL.md), with their sha256 for the
 * record: path → [content, hash]. A skill's hash is kept by the skill object, so it is computed once for every
 * stack that ships it (a hot reload's skills are new objects). Rendered files are hashed anew: a lookup by
 * content hashes the whole text as a key, which for a fresh string under ~10K characters costs more than the
 * sha256 itself (measured: 300 characters 3.3 µs against 1.2, 8,000 characters 17 against 8).
 */
export function catalogueFileHashes(model: StackModel): Map<string, readonly [string, string]> {
  const out = new Map<string, readonly [string, string]>();
  for (const pack of model.resolution.skillPacks) {
    for (const skill of pack.skills) out.set(skillFile(pack, skill), [skill.body, skillHash(skill)]);
  }
  return out;
}
const skillHash = perObject((skill: Skill) => fileHash(skill.body));
