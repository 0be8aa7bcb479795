// configs/<id>/config.yaml: the reference description of the stack every framework gets (issue 31). The
// part all frameworks share (the header, the stack, the framework and its gateway, provider keys, the other
// services, the companions, the skill packs) is built here as objects from the model and the framework's
// manifest (`config.*`) and dumped; the framework's own section, where it has one, is its template
// (`config.template`), appended. A fix to the shared part is made once, and a framework plugin holds only
// what is its own.
import type { FrameworkManifest, FrameworkPlugin } from '../catalogue/types.js';
// every string double-quoted, as the templates' `it.yaml` writes scalars, so the shared part and the
// framework's own section read alike
import { dumpQuotedListKept, dumpQuotedYaml, dumpQuotedYamlKept } from '../emit/yaml-dump.js';
import { deepFreeze } from '../freeze.js';
import { KeptSlots, perObject } from '../memo.js';

/** The template context's parts the shared document reads (bundle/plugin-files.ts builds them). */
export interface ReferenceContext {
  stack: { name: string; domain: string | null; deployment: string };
  self: { id: string; host: string; url: string | null; ports: readonly { container: number; host: number | null; web: boolean }[] } | null;
  services: readonly { id: string; name: string; kind: string; category: string | null; host: string; url: string | null; ports: readonly { container: number; web: boolean }[]; secrets: readonly string[] }[];
  skills: readonly { id: string; name: string; dir: string; skills: readonly { id: string; name: string; description: string }[] }[];
}

/**
 * Where the framework keeps its state, for the placement it runs in (also the template's `it.framework.home`);
 * `<stack>` in it becomes the stack's name, as in firstRun's steps.
 */
export function frameworkHome(manifest: FrameworkManifest, native: boolean, stackName: string): string {
  return (native ? manifest.config.home.native : manifest.config.home.container).replaceAll('<stack>', stackName);
}

/** The arguments of `docker compose exec` that attach a person to an interactive framework (the README's and this file's). */
export function execArguments(id: string, interactive: NonNullable<FrameworkManifest['interactive']>): string {
  return `${interactive.workdir ? `-w ${interactive.workdir} ` : ''}${id} ${interactive.command}`;
}

/** What a person runs to reach an interactive framework: its command natively, else `docker compose exec` into it. */
function interactiveAccess(id: string, interactive: NonNullable<FrameworkManifest['interactive']>, native: boolean): string {
  return native ? interactive.command : `docker compose exec ${execArguments(id, interactive)}`;
}

/** A stack of the framework alone: where the document's keys are read from, as they do not depend on the stack. */
const EMPTY_STACK: ReferenceContext = { stack: { name: 'stack', domain: null, deployment: 'docker' }, self: null, services: [], skills: [] };

/**
 * Every place `config.comments` may name: a section (`gateway`) or a key of a mapping section
 * (`gateway.bind`), read off the document itself. The loader holds a manifest's comments to these (rule
 * framework.config).
 */
export function commentTargets(plugin: FrameworkPlugin): Set<string> {
  const self = { id: plugin.id, host: plugin.id, url: null, ports: [] };
  const out = new Set<string>();
  for (const [section, value] of Object.entries(referenceDocument(plugin, 'primary', false, { ...EMPTY_STACK, self }))) {
    out.add(section);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) for (const key of Object.keys(value)) out.add(`${section}.${key}`);
  }
  return out;
}

/** `text` as comment lines at `indent`, one `#` line per line of the text. */
function commentLines(text: string, indent: string): string {
  return text.split('\n').map((line) => `${indent}#${line ? ` ${line}` : ''}\n`).join('');
}

/** One top-level section as YAML, with the manifest's comments before it and before its keys. */
function section(key: string, value: unknown, comments: Readonly<Record<string, string>>): string {
  // a list's items (the services) and the skill packs recur from stack to stack: their texts are kept
  let text = Array.isArray(value) ? dumpQuotedListKept(key, value)
    : key === 'skills' ? skillsText(value as SkillsSection)
      : dumpQuotedYaml({ [key]: value });
  for (const [target, comment] of Object.entries(comments)) {
    const [top, child] = target.split('.');
    if (top !== key || child === undefined) continue;
    // a key of this mapping is a line two spaces in starting with it (every string is one double-quoted line, and
    // the first line is the section's own key); a search, not a regular expression built on each render
    const line = text.indexOf(`\n  ${child}:`);
    if (line === -1) throw new Error(`config.comments names ${target}, which the reference file does not have`);
    const at = line + 1;
    text = text.slice(0, at) + commentLines(comment, '  ') + text.slice(at);
  }
  return (comments[key] !== undefined ? commentLines(comments[key], '') : '') + text;
}

/** The shared part's sections, in the file's order, as objects. */
function referenceDocument(plugin: FrameworkPlugin, role: string, native: boolean, context: ReferenceContext): Record<string, unknown> {
  const m = plugin.manifest;
  const c = m.config;
  const self = context.self!;
  const home = frameworkHome(m, native, context.stack.name);
  const others = context.services.filter((s) => s.id !== self.id && s.kind !== 'framework');
  const companions = context.services.filter((s) => s.id !== self.id && s.kind === 'framework');
  const gateway = c.gateway
    ? {
      enabled: true,
      port: c.gateway.port,
      bind: native ? c.gateway.bind.native : c.gateway.bind.container,
      // the gateway's own port as the framework reaches itself (its host, the port unmapped: its own placement)
      url: `http://${self.host}:${c.gateway.port}`,
      healthPath: c.gateway.healthPath ?? null,
      authTokenEnv: c.gateway.authTokenEnv ?? null,
    }
    : { enabled: false, port: null, url: null, healthPath: null, authTokenEnv: null };
  return {
    stackwright: { configVersion: 1, stack: context.stack.name, domain: context.stack.domain, deployment: context.stack.deployment },
    framework: {
      id: plugin.id, name: m.name, role, interactive: m.interactive !== undefined, host: self.host, url: self.url, home,
      ports: self.ports.map((p) => ({ container: p.container, host: p.host, web: p.web })),
    },
    gateway: m.interactive ? { ...gateway, access: interactiveAccess(plugin.id, m.interactive, native) } : gateway,
    providers: c.providers ?? [],
    services: others.map((s) => serviceItem(plugin, s)),
    companions: companions.map((s) => companionItem(plugin, s)),
    skills: skillsSection(context.skills),
  };
}

type ServiceEntry = ReferenceContext['services'][number];

/**
 * A service's item of the `services` list, frozen and kept per framework and service while what it is made of
 * is the same: one object across stacks, so its text is kept by it (dumpQuotedListKept) and a new selection
 * compares a few fields of each service instead of building and comparing its item.
 */
function serviceItem(framework: FrameworkPlugin, s: ServiceEntry) {
  const last = keptServiceItems.get(framework, s.id);
  if (last !== undefined && last.host === s.host && last.url === s.url && last.name === s.name && last.kind === s.kind
    && last.category === s.category && last.secretEnv === s.secrets && samePorts(last.ports, s.ports)) return last;
  return keptServiceItems.keep(framework, s.id, {
    id: s.id, name: s.name, kind: s.kind, category: s.category, host: s.host, url: s.url,
    ports: deepFreeze(s.ports.map((p) => ({ container: p.container, web: p.web }))),
    secretEnv: s.secrets,
  });
}
const keptServiceItems = new KeptSlots<FrameworkPlugin, { id: string; name: string; kind: string; category: string | null; host: string; url: string | null; ports: readonly { container: number; web: boolean }[]; secretEnv: readonly string[] }>();

const samePorts = (kept: readonly { container: number; web: boolean }[], ports: readonly { container: number; web: boolean }[]) =>
  kept.length === ports.length && kept.every((p, i) => p.container === ports[i].container && p.web === ports[i].web);

/** A companion framework's item of the `companions` list, kept as serviceItem keeps a service's. */
function companionItem(framework: FrameworkPlugin, s: ServiceEntry) {
  const last = keptCompanionItems.get(framework, s.id);
  if (last !== undefined && last.name === s.name && last.host === s.host && last.url === s.url) return last;
  return keptCompanionItems.keep(framework, s.id, { id: s.id, name: s.name, host: s.host, url: s.url });
}
const keptCompanionItems = new KeptSlots<FrameworkPlugin, { id: string; name: string; host: string; url: string | null }>();

/**
 * The skill packs' section, by the packs' context: plugin-files.ts hands over the same frozen array while a
 * stack's packs and their folder stay the same, so the section and its text (a few KB with every skill's
 * description) are made once for it rather than for every stack, and looked up without their JSON.
 */
const skillsSection = perObject((packs: ReferenceContext['skills']) => deepFreeze({
  packs: packs.map((pack) => ({
    id: pack.id, name: pack.name, dir: pack.dir,
    skills: pack.skills.map((sk) => ({ id: sk.id, name: sk.name, description: sk.description, file: `${pack.dir}/${sk.id}/SKILL.md` })),
  })),
}));
type SkillsSection = ReturnType<typeof skillsSection>;
const skillsText = perObject((section: SkillsSection) => dumpQuotedYamlKept({ skills: section }));

/**
 * The reference file's shared part (ending in a line break), for the framework in `context.self` placed
 * natively or in a container. Strings are dumped as data, so nothing from a request or a plugin can
 * break the YAML.
 */
export function referenceConfig(plugin: FrameworkPlugin, role: string, native: boolean, context: ReferenceContext): string {
  const c = plugin.manifest.config;
  const header = commentLines([
    `Reference only: ${c.reads}`,
    `Generated by Stackwright for the stack ${JSON.stringify(context.stack.name)}. Regenerate the stack instead of editing this file.`,
    ...(c.about ?? []),
    'No secret values are written here: every key and token is named by the environment variable that holds it.',
  ].join('\n'), '');
  const comments = c.comments ?? {};
  return header + Object.entries(referenceDocument(plugin, role, native, context)).map(([key, value]) => section(key, value, comments)).join('\n');
}
