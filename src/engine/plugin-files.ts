// Files rendered from plugin templates: framework configs, service config files, proxy configs, and the
// skill files of the selected packs. The template context is the closed set docs/plugins.md lists.
import type { ContainerPlugin, FrameworkPlugin, ProxyPlugin, ServicePlugin } from '../catalogue/types.js';
import { compileTemplate, renderTemplate, templateErrorMessage, type CompiledTemplate } from '../templating.js';
import { addressOf, type Viewer } from './addresses.js';
import { frameworkConfigPath, proxyFilePath, serviceFilePath } from './compose.js';
import { configString, yamlScalar } from './escape.js';
import { clientKeys, nativeSkillsDir, type StackMember, type StackModel } from './model.js';
import { lockedAuthFile } from './proxy-auth.js';
import type { FragmentCache } from './fragment-cache.js';

interface ServiceEntry {
  id: string;
  name: string;
  kind: string;
  category: string | null;
  host: string;
  ports: { container: number; host: number | null; web: boolean }[];
  url: string | null;
  secrets: string[];
}

/** Where each member is reached from, for a reader in a container or on the host. */
function serviceEntries(model: StackModel, viewer: Viewer): ServiceEntry[] {
  return model.members.filter((m) => m.plugin.kind !== 'proxy').map((m) => {
    const published = new Map(model.ports.filter((p) => p.plugin === m.plugin.id).map((p) => [p.container, p.host]));
    const ports = (m.plugin.manifest.ports ?? []).map((p) => ({ container: p.container, host: published.get(p.container) ?? null, web: p.web ?? false }));
    const address = addressOf(model, m, viewer);
    return {
      id: m.plugin.id,
      name: m.plugin.manifest.name,
      kind: m.plugin.kind,
      category: m.plugin.kind === 'service' ? (m.plugin as ServicePlugin).manifest.category : null,
      host: address.host,
      ports,
      url: address.url,
      secrets: clientKeys(m.plugin),
    };
  });
}

/** What every template of one stack sees alike, for readers in containers or on the host. */
function sharedContext(model: StackModel, placement: StackMember['placement']) {
  const services = serviceEntries(model, placement);
  const ids = new Set(services.map((s) => s.id));
  return {
    stack: { name: model.options.name, domain: model.options.domain ?? null, deployment: model.options.deployment },
    services,
    has: (id: string) => ids.has(id),
    routes: model.routes,
    https: model.https,
    publicUrls: Object.fromEntries(model.publicUrls),
    databases: model.databases,
    proxyAuth: model.proxyAuth && model.resolution.proxy
      ? { file: model.resolution.proxy.manifest.basicAuth.file, format: model.resolution.proxy.manifest.basicAuth.format }
      : null,
    yaml: yamlScalar,
    str: configString,
  };
}

/** The context of one plugin's template: the shared part plus what depends on the plugin. */
function pluginContext(shared: ReturnType<typeof sharedContext>, model: StackModel, member: StackMember) {
  return {
    ...shared,
    self: shared.services.find((s) => s.id === member.plugin.id) ?? null,
    skills: model.resolution.skillPacks.map((p) => ({
      id: p.id,
      name: p.manifest.name,
      dir: skillDir(model, member, p.id),
      skills: p.skills.map((s) => ({ id: s.id, name: s.name, description: s.description })),
    })),
  };
}

function skillDir(model: StackModel, member: StackMember, packId: string): string {
  if (member.plugin.kind !== 'framework') return `skills/${packId}`;
  const fw = member.plugin as FrameworkPlugin;
  return member.placement === 'native' ? `${nativeSkillsDir(model.options.name, fw)}/${packId}` : `${fw.manifest.skillsTarget}/${packId}`;
}

function skillsReadme(model: StackModel): string {
  const packs = model.resolution.skillPacks.map((p) => `- \`${p.id}/\`: ${p.manifest.name} (${p.skills.map((s) => s.id).join(', ')})`);
  return ['# Skills', '', 'Skill packs of this stack, one folder per skill with its SKILL.md. The framework reads this folder',
    '(mounted read-only in its container); add your own skill folders here and restart the framework.', '',
    ...(packs.length ? packs : ['No skill pack was selected.']), ''].join('\n');
}

/** Everything of a stack a template context is built from, as one string. */
function stackFingerprint(model: StackModel): string {
  return JSON.stringify([
    model.options,
    model.members.map((m) => [m.plugin.id, m.plugin.hash, m.placement]),
    model.ports.map((p) => [p.plugin, p.container, p.host]),
    model.routes,
    model.resolution.skillPacks.map((p) => [p.id, p.hash]),
  ]);
}

export class PluginFileRenderer {
  private readonly compiled = new Map<string, CompiledTemplate>();

  constructor(private readonly cache: FragmentCache) {}

  /** bundle path → content of every plugin-rendered file of the stack */
  render(model: StackModel): Map<string, string> {
    const files = new Map<string, string>();
    const fingerprint = stackFingerprint(model);
    // built at most once per placement, and only when a template is not in the cache
    const shared = new Map<StackMember['placement'], ReturnType<typeof sharedContext>>();
    const sharedFor = (placement: StackMember['placement']) => {
      let context = shared.get(placement);
      if (!context) shared.set(placement, (context = sharedContext(model, placement)));
      return context;
    };
    const renderOne = (member: StackMember, template: string, extra: Record<string, unknown> = {}): string => {
      // what the template can see is fixed by the stack (fingerprint), where the plugin runs and `extra`
      const inputKey = `${fingerprint}\0${member.placement}\0${JSON.stringify(extra)}`;
      return this.cache.get(`file:${template}`, member.plugin.hash, inputKey, () => {
        try {
          return renderTemplate(this.template(member.plugin, template), { ...pluginContext(sharedFor(member.placement), model, member), ...extra });
        } catch (e) {
          throw new Error(`template ${template} of ${member.plugin.kind} "${member.plugin.id}" failed: ${templateErrorMessage(e)}`);
        }
      });
    };
    for (const member of model.members) {
      const p = member.plugin;
      if (p.kind === 'framework') {
        const fw = p as FrameworkPlugin;
        files.set(frameworkConfigPath(p.id), renderOne(member, fw.manifest.config.template, { framework: { id: p.id, name: fw.manifest.name, role: member.role ?? 'primary' } }));
      } else if (p.kind === 'service') {
        const m = (p as ServicePlugin).manifest;
        for (const f of m.files ?? []) files.set(serviceFilePath(p.id, f.template), renderOne(member, f.template));
        // the setup script exists only while some consumer has a database on this server
        if (m.databaseServer && model.databases.some((d) => d.server === p.id)) {
          files.set(serviceFilePath(p.id, m.databaseServer.setup), renderOne(member, m.databaseServer.setup));
        }
      } else {
        const proxy = p as ProxyPlugin;
        for (const f of proxy.manifest.configFiles.filter((c) => !c.https || model.https)) files.set(proxyFilePath(proxy, f.file), renderOne(member, f.template));
        if (model.proxyAuth) files.set(proxyFilePath(proxy, proxy.manifest.basicAuth.file), lockedAuthFile(proxy.manifest.basicAuth.format));
      }
    }
    for (const pack of model.resolution.skillPacks) {
      for (const skill of pack.skills) files.set(`skills/${pack.id}/${skill.id}/SKILL.md`, skill.body);
    }
    // the framework containers bind-mount skills/: it must exist even with no pack selected
    files.set('skills/README.md', skillsReadme(model));
    return files;
  }

  private template(plugin: ContainerPlugin, name: string): CompiledTemplate {
    const key = `${plugin.kind}/${plugin.id}/${name}@${plugin.hash}`;
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = compileTemplate(plugin.templates.get(name)!);
      this.compiled.set(key, fn);
    }
    return fn;
  }
}
