// Step 1 of loading: find the plugin folders, parse their YAML, check each against its JSON Schema and
// read the files it names. Produces raw plugins plus problems; cross-references are rules.ts's job.
import crypto from 'node:crypto';
import type { Dirent } from 'node:fs';
import { fs } from '../node-builtins.js';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { describeSchemaError, usefulErrors, validator } from '../schemas.js';
import { settledDocument } from './settled-document.js';
import { FAMILIES_DIR, joinFamily } from './database-families.js';
import { METRICS_DIR, SCRAPE_TEMPLATE, scrapeTemplateName } from './scrape-config.js';
import type { Problem } from './problems.js';
import type {
  Category, DatabaseFamily, FrameworkPlugin, PluginKind, PresetPlugin, ProxyPlugin, ServicePlugin, Skill, SkillPackPlugin,
} from './types.js';

export interface CatalogueDirs {
  /** folder holding services/, frameworks/, proxies/, skills/ */
  plugins: string;
  /** folder holding categories.yaml, presets/ and database-families/ */
  catalogue: string;
}

export interface RawCatalogue {
  categories: Category[];
  services: ServicePlugin[];
  frameworks: FrameworkPlugin[];
  proxies: ProxyPlugin[];
  skillPacks: SkillPackPlugin[];
  presets: PresetPlugin[];
  /** the database engine families database servers name (catalogue/database-families/) */
  databaseFamilies: DatabaseFamily[];
  /** plugin folders whose manifest did not load (its problems are recorded): id -> manifest file */
  unloaded: Map<string, string>;
}

/** A plugin id: its folder's name, and its Compose service name. */
export const PLUGIN_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Where each kind lives and which schema checks it. */
export const FOLDER_KINDS = [
  { kind: 'service', folder: 'services', manifest: 'service.yaml', schema: 'service' },
  { kind: 'framework', folder: 'frameworks', manifest: 'framework.yaml', schema: 'framework' },
  { kind: 'proxy', folder: 'proxies', manifest: 'proxy.yaml', schema: 'proxy' },
  { kind: 'skill-pack', folder: 'skills', manifest: 'skill-pack.yaml', schema: 'skill-pack' },
] as const;

export function readCatalogue(dirs: CatalogueDirs, problems: Problem[]): RawCatalogue {
  const root = commonRoot(dirs);
  const ctx = new ReadContext(root, problems);
  const raw: RawCatalogue = { categories: [], services: [], frameworks: [], proxies: [], skillPacks: [], presets: [], databaseFamilies: [], unloaded: new Map() };

  const categoriesFile = path.join(dirs.catalogue, 'categories.yaml');
  const categories = ctx.readManifest(categoriesFile, 'categories') as { categories: Category[] } | undefined;
  raw.categories = categories?.categories ?? [];

  const families = readFamilies(ctx, path.join(dirs.catalogue, FAMILIES_DIR));
  raw.databaseFamilies = [...families.loaded.values()];
  // the one scrape configuration of every metrics database (catalogue/scrape-config.ts), read when one names it
  // (a missing one is reported on each plugin naming it)
  let scrapeTemplate: string | undefined;
  const sharedScrape = (file: string): string | undefined =>
    (scrapeTemplate ??= ctx.readTemplates(path.join(dirs.catalogue, METRICS_DIR), file, [{ name: SCRAPE_TEMPLATE, pointer: '/scrapeConfig' }]).get(SCRAPE_TEMPLATE));

  for (const spec of FOLDER_KINDS) {
    const kindDir = path.join(dirs.plugins, spec.folder);
    for (const id of ctx.listDir(kindDir, 'dirs')) {
      const dir = path.join(kindDir, id);
      const file = path.join(dir, spec.manifest);
      if (!ctx.checkId(id, file)) continue;
      if (!fs.existsSync(file)) {
        ctx.problem(file, '', 'file.unreadable', `the folder ${ctx.rel(dir)} has no ${spec.manifest}`);
        continue;
      }
      const read = ctx.readManifest(file, spec.schema);
      // a database server of a family gets the family's setup script, as if its folder held it
      const joined = read && spec.kind === 'service'
        ? joinFamily(read, families.loaded, families.unloaded, (pointer, rule, message) => ctx.problem(file, pointer, rule, message))
        : read && { manifest: read };
      if (!joined || !ctx.checkDeclaredId(joined.manifest, id, file)) {
        raw.unloaded.set(id, ctx.rel(file));
        continue;
      }
      const { manifest, template: familySetup } = joined;
      // a metrics database gets the shared scrape configuration under the name its scrapeConfig gives
      const scrape = spec.kind === 'service' ? scrapeTemplateName(manifest) : undefined;
      const templates = ctx.readTemplates(dir, file, templateNames(spec.kind, manifest, familySetup?.[0], scrape));
      if (familySetup) templates.set(...familySetup);
      const shared = scrape && sharedScrape(file);
      if (scrape && shared !== undefined) templates.set(scrape, shared);
      const base = { id, dir, file: ctx.rel(file), templates, hash: hashOf(manifest, templates) };
      switch (spec.kind) {
        case 'service': raw.services.push({ ...base, kind: 'service', manifest } as unknown as ServicePlugin); break;
        case 'framework': raw.frameworks.push({ ...base, kind: 'framework', manifest } as unknown as FrameworkPlugin); break;
        case 'proxy': raw.proxies.push({ ...base, kind: 'proxy', manifest } as unknown as ProxyPlugin); break;
        case 'skill-pack': {
          const skills = ctx.readSkills(dir, file, (manifest as { skills: string[] }).skills);
          const withSkills = { ...base, hash: hashOf(manifest, templates, skills) };
          raw.skillPacks.push({ ...withSkills, kind: 'skill-pack', manifest, skills } as unknown as SkillPackPlugin);
          break;
        }
      }
    }
  }

  const presetDir = path.join(dirs.catalogue, 'presets');
  for (const name of ctx.listDir(presetDir, 'files')) {
    if (!name.endsWith('.yaml')) continue;
    const id = name.slice(0, -'.yaml'.length);
    const file = path.join(presetDir, name);
    if (!ctx.checkId(id, file)) continue;
    const manifest = ctx.readManifest(file, 'preset');
    if (!manifest || !ctx.checkDeclaredId(manifest, id, file)) continue;
    raw.presets.push({
      kind: 'preset', id, dir: presetDir, file: ctx.rel(file), manifest, templates: new Map(), hash: hashOf(manifest),
    } as unknown as PresetPlugin);
  }
  return raw;
}

/**
 * The database families under `dir`, each family.yaml schema-checked with its setup template, and the ids
 * of family folders that did not load (their problems are recorded).
 */
function readFamilies(ctx: ReadContext, dir: string): { loaded: Map<string, DatabaseFamily>; unloaded: Set<string> } {
  const loaded = new Map<string, DatabaseFamily>();
  const unloaded = new Set<string>();
  for (const id of ctx.listDir(dir, 'dirs')) {
    const file = path.join(dir, id, 'family.yaml');
    if (!ctx.checkId(id, file)) continue;
    if (!fs.existsSync(file)) {
      ctx.problem(file, '', 'file.unreadable', `the family folder ${ctx.rel(path.join(dir, id))} has no family.yaml`);
      unloaded.add(id);
      continue;
    }
    const manifest = ctx.readManifest(file, 'database-family') as DatabaseFamily['manifest'] | undefined;
    const template = manifest && ctx.readTemplates(path.join(dir, id), file, [{ name: manifest.setup, pointer: '/setup' }]).get(manifest.setup);
    if (!manifest || template === undefined) {
      unloaded.add(id);
      continue;
    }
    loaded.set(id, { id, file: ctx.rel(file), manifest, template });
  }
  return { loaded, unloaded };
}

/**
 * Template files a manifest names, each to be read from the plugin folder (`joined`: the family's setup,
 * `scrape`: the shared scrape configuration, read already).
 */
function templateNames(kind: PluginKind, manifest: Record<string, unknown>, joined?: string, scrape?: string): { name: string; pointer: string }[] {
  const m = manifest as {
    files?: { template: string }[]; config?: { template?: string }; configFiles?: { template: string }[];
    databaseServer?: { setup: string };
  };
  if (kind === 'service') {
    const files = (m.files ?? []).map((f, i) => ({ name: f.template, pointer: `/files/${i}/template` })).filter((f) => f.name !== scrape);
    return m.databaseServer && m.databaseServer.setup !== joined ? [...files, { name: m.databaseServer.setup, pointer: '/databaseServer/setup' }] : files;
  }
  // a framework's template is its own section of the reference config, when it has one
  if (kind === 'framework' && m.config?.template !== undefined) return [{ name: m.config.template, pointer: '/config/template' }];
  if (kind === 'proxy') return (m.configFiles ?? []).map((f, i) => ({ name: f.template, pointer: `/configFiles/${i}/template` }));
  return [];
}

function hashOf(...parts: unknown[]): string {
  const h = crypto.createHash('sha256');
  for (const p of parts) h.update(JSON.stringify(p instanceof Map ? [...p] : p));
  return h.digest('hex').slice(0, 16);
}

function commonRoot(dirs: CatalogueDirs): string {
  const a = path.resolve(dirs.plugins).split(path.sep);
  const b = path.resolve(dirs.catalogue).split(path.sep);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i).join(path.sep) || path.sep;
}

class ReadContext {
  constructor(private readonly root: string, private readonly problems: Problem[]) {}

  rel(file: string): string {
    return path.relative(this.root, file) || file;
  }

  problem(file: string, pointer: string, rule: Problem['rule'], message: string, severity: Problem['severity'] = 'error'): void {
    this.problems.push({ severity, file: this.rel(file), pointer, rule, message });
  }

  listDir(dir: string, want: 'dirs' | 'files'): string[] {
    let entries: Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      // a kind with no folder simply has no plugins; anything else is a real problem
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.problem(dir, '', 'file.unreadable', `cannot list ${this.rel(dir)}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      return [];
    }
    return entries
      .filter((e) => !e.name.startsWith('.') && (want === 'dirs' ? e.isDirectory() : e.isFile()))
      .map((e) => e.name)
      .sort();
  }

  checkId(id: string, file: string): boolean {
    if (PLUGIN_ID.test(id)) return true;
    this.problem(file, '', 'id.invalid', `"${id}" is not a valid id: use 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit`);
    return false;
  }

  /** A manifest may state its id; it must then be the folder's, or a copied folder would load as the wrong plugin. */
  checkDeclaredId(manifest: Record<string, unknown>, id: string, file: string): boolean {
    if (manifest.id === undefined || manifest.id === id) return true;
    this.problem(file, '/id', 'id.mismatch', `id "${manifest.id}" does not match the ${file.endsWith('.yaml') && !file.includes(`${path.sep}${id}${path.sep}`) ? 'file' : 'folder'} name "${id}": rename one of them`);
    return false;
  }

  /** Parsed and schema-checked manifest, or undefined after recording why not. */
  readManifest(file: string, schema: string): Record<string, unknown> | undefined {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      this.problem(file, '', 'file.unreadable', `cannot read: ${(e as NodeJS.ErrnoException).code ?? e}`);
      return undefined;
    }
    let doc: unknown;
    try {
      doc = yaml.load(text, { filename: file, schema: yaml.CORE_SCHEMA });
    } catch (e) {
      const err = e as yaml.YAMLException;
      const where = err.mark ? ` at line ${err.mark.line + 1}, column ${err.mark.column + 1}` : '';
      this.problem(file, '', 'yaml.parse', `${err.reason ?? err.message}${where}`);
      return undefined;
    }
    const validate = validator(schema);
    if (!validate(doc)) {
      for (const e of usefulErrors(validate.errors)) {
        this.problem(file, e.instancePath, 'schema', describeSchemaError(schema, e));
      }
      return undefined;
    }
    // fast objects and one-byte strings for every render that reads it (settled-document.ts)
    return settledDocument(doc as Record<string, unknown>);
  }

  readTemplates(dir: string, manifestFile: string, names: { name: string; pointer: string }[]): Map<string, string> {
    const out = new Map<string, string>();
    for (const { name, pointer } of names) {
      try {
        out.set(name, fs.readFileSync(path.join(dir, name), 'utf8'));
      } catch {
        this.problem(manifestFile, pointer, 'template.missing', `template "${name}" is not in ${this.rel(dir)}`);
      }
    }
    return out;
  }

  readSkills(dir: string, manifestFile: string, ids: string[]): Skill[] {
    const skills: Skill[] = [];
    ids.forEach((id, i) => {
      const file = path.join(dir, 'skills', `${id}.md`);
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        this.problem(manifestFile, `/skills/${i}`, 'skill.missing', `skill "${id}" has no file ${this.rel(file)}`);
        return;
      }
      const front = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
      let meta: { name?: unknown; description?: unknown } = {};
      try {
        meta = (front && (settledDocument(yaml.load(front[1], { schema: yaml.CORE_SCHEMA })) as typeof meta)) || {};
      } catch { /* reported below as missing front matter */ }
      if (typeof meta.name !== 'string' || typeof meta.description !== 'string') {
        this.problem(file, '', 'skill.frontmatter', 'start the file with front matter (--- name: ... description: ... ---)');
        return;
      }
      skills.push({ id, name: meta.name, description: meta.description, body: text, file: this.rel(file) });
    });
    return skills;
  }
}
