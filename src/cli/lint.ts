// `stackwright lint [folder...]`: the loader's checks for plugin authors. Without folders, the whole
// catalogue the service would load. With folders, each is checked as it would join that catalogue (a
// copy of the catalogue with the folder dropped in, replacing a plugin of the same id), and only the
// folder's own problems are reported, named by the folder's real path. A manifest that breaks its schema
// is checked again with the broken fields set aside (second round), so one run lists every problem that
// can be judged.
import { fs } from '../node-builtins.js';
import os from 'node:os';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { loadCatalogue, type LoadResult } from '../catalogue/load.js';
import { formatProblem, RULE_READS, type Problem } from '../catalogue/problems.js';
import { FOLDER_KINDS, PLUGIN_ID } from '../catalogue/read.js';
import type { CatalogueDirs } from '../catalogue/load.js';
import { EXIT, UsageError, type Output } from './output.js';

export type LintFormat = 'text' | 'json' | 'github';
export const LINT_FORMATS: LintFormat[] = ['text', 'json', 'github'];

export interface LintReport { errors: Problem[]; warnings: Problem[]; summary: string; ok: boolean }

/** Checks the given plugin folders against the catalogue in `dirs` (or the whole catalogue when none). */
export function lintFolders(folders: string[], dirs: CatalogueDirs): LintReport {
  if (folders.length === 0) {
    const result = loadCatalogue(dirs);
    return report(result.errors, result.warnings, summaryOf(result));
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-lint-'));
  try {
    const plugins = path.join(root, 'plugins');
    fs.cpSync(dirs.plugins, plugins, { recursive: true });
    fs.cpSync(dirs.catalogue, path.join(root, 'catalogue'), { recursive: true });
    const errors: Problem[] = [];
    // where each folder sits in the copy, to name problems by the author's path
    const places: Place[] = [];
    for (const folder of folders) {
      const real = path.relative(process.cwd(), path.resolve(folder)) || '.';
      const unreadable = (message: string) => errors.push({ severity: 'error', file: real, pointer: '', rule: 'file.unreadable', message });
      if (!fs.existsSync(folder)) {
        unreadable(`${real} does not exist: give the path of a plugin folder`);
        continue;
      }
      if (!fs.statSync(folder).isDirectory()) {
        unreadable(`${real} is a file, not a folder: give the plugin's folder (the one holding its manifest)`);
        continue;
      }
      const kind = FOLDER_KINDS.find((k) => fs.existsSync(path.join(folder, k.manifest)));
      if (!kind) {
        unreadable(`no plugin manifest here: a plugin folder holds one of ${FOLDER_KINDS.map((k) => k.manifest).join(', ')}`);
        continue;
      }
      const name = path.basename(path.resolve(folder));
      // the loader skips a folder whose name starts with a dot and refuses other invalid ids: say so,
      // then check the rest of the folder under a valid name, so its other problems show in this round
      const id = PLUGIN_ID.test(name) ? name : validIdLike(name);
      if (id !== name) {
        errors.push({
          severity: 'error', file: real, pointer: '', rule: 'id.invalid',
          message: name.startsWith('.')
            ? `the folder name "${name}" starts with a dot: the service skips such folders, so this plugin would never load; rename the folder to its id (e.g. "${id}")`
            : `"${name}" is not a valid id: use 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit (e.g. "${id}")`,
        });
      }
      const copy = path.join('plugins', kind.folder, id);
      fs.rmSync(path.join(root, copy), { recursive: true, force: true });
      fs.cpSync(folder, path.join(root, copy), { recursive: true });
      places.push({ copy, real, id, kind });
    }
    const load = () => loadCatalogue({ plugins, catalogue: path.join(root, 'catalogue') });
    const result = load();
    const own = (p: Problem): Problem | undefined => {
      const place = places.find((pl) => p.file === pl.copy || p.file.startsWith(`${pl.copy}/`));
      return place ? { ...p, file: path.join(place.real, p.file.slice(place.copy.length + 1)) } : undefined;
    };
    const mapped = (list: Problem[]) => list.map(own).filter((p): p is Problem => p !== undefined);
    let found = { errors: [...errors, ...mapped(result.errors)], warnings: mapped(result.warnings) };
    const setAside = setAsideBrokenFields(root, places, result);
    if (setAside.size) {
      // the second round: what the rules say about the fields that do match the schema
      const again = load();
      const judged = (p: Problem) => {
        const fields = [...setAside].find(([copy]) => p.file.startsWith(`${copy}/`))?.[1];
        if (!fields || p.rule === 'schema') return false;
        const reads = [p.pointer.split('/')[1] ?? '', ...(RULE_READS[p.rule] ?? [])];
        return !reads.some((f) => fields.has(f));
      };
      const seen = new Set([...found.errors, ...found.warnings].map((p) => JSON.stringify(p)));
      const more = (list: Problem[]) => mapped(list.filter(judged)).filter((p) => !seen.has(JSON.stringify(p)));
      found = { errors: [...found.errors, ...more(again.errors)], warnings: [...found.warnings, ...more(again.warnings)] };
    }
    const folderErrors = found.errors;
    const folderWarnings = found.warnings;
    const summary = `${folders.length} folder(s) checked against a catalogue of ${result.raw?.services.length ?? 0} services: ${folderErrors.length} error(s), ${folderWarnings.length} warning(s)`;
    return report(folderErrors, folderWarnings, summary);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Where a checked folder sits in the catalogue copy, and what it is. */
interface Place { copy: string; real: string; id: string; kind: (typeof FOLDER_KINDS)[number] }

const RAW_LISTS = { service: 'services', framework: 'frameworks', proxy: 'proxies', 'skill-pack': 'skillPacks' } as const;

/**
 * Rewrites, in the copy, each checked manifest that breaks its schema: every top-level field with a
 * schema problem takes the value another plugin of the same kind has (a known-good shape), or goes when
 * none has it. Returns, by folder in the copy, the fields set aside; a problem in or reading one of them
 * is not reported from the second round (its first-round schema problem stands).
 */
function setAsideBrokenFields(root: string, places: Place[], first: LoadResult): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const place of places) {
    const file = path.join(place.copy, place.kind.manifest);
    const broken = first.errors.filter((p) => p.file === file && p.rule === 'schema');
    if (!broken.length) continue;
    const fields = new Set<string>();
    for (const p of broken) {
      const field = p.pointer.split('/')[1] ?? /(?:missing required|unknown) field "([^"]+)"/.exec(p.message)?.[1];
      if (field === undefined) { fields.clear(); break; }
      fields.add(field);
    }
    let manifest: unknown;
    try { manifest = yaml.load(fs.readFileSync(path.join(root, file), 'utf8'), { schema: yaml.CORE_SCHEMA }); } catch { continue; }
    // a document that is not a mapping, or a problem of the whole document, leaves nothing to set aside
    if (!fields.size || !manifest || typeof manifest !== 'object' || Array.isArray(manifest)) continue;
    const donor = (first.raw?.[RAW_LISTS[place.kind.kind]] ?? []).find((p) => p.id !== place.id)?.manifest as Record<string, unknown> | undefined;
    const patched = { ...(manifest as Record<string, unknown>) };
    for (const field of fields) {
      if (field === 'id') patched.id = place.id;
      else if (donor && field in donor) patched[field] = donor[field];
      else delete patched[field];
    }
    fs.writeFileSync(path.join(root, file), yaml.dump(patched));
    out.set(place.copy, fields);
  }
  return out;
}

/** The nearest valid id to a folder name (lower case, other characters as dashes, no leading dots). */
function validIdLike(name: string): string {
  const id = name.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 63).replace(/-+$/, '');
  return id || 'plugin';
}

function summaryOf(result: LoadResult): string {
  const c = result.catalogue;
  return c
    ? `ok: ${c.services.size} services, ${c.frameworks.size} frameworks, ${c.proxies.size} proxies, ${c.skillPacks.size} skill packs, ${c.presets.size} presets, ${c.categories.size} categories; ${result.warnings.length} warning(s); loaded in ${result.loadMs.toFixed(0)} ms`
    : `${result.errors.length} error(s), ${result.warnings.length} warning(s): the service would refuse to start`;
}

function report(errors: Problem[], warnings: Problem[], summary: string): LintReport {
  return { errors, warnings, summary, ok: errors.length === 0 };
}

/** Prints a report in the chosen format; returns the exit code (0 clean, 1 errors). */
export function printLint(r: LintReport, format: LintFormat, io: Output): number {
  if (format === 'json') {
    const plain = (p: Problem) => ({ file: p.file, ...(p.line ? { line: p.line } : {}), pointer: p.pointer, rule: p.rule, severity: p.severity, message: p.message });
    io.out(JSON.stringify({ ok: r.ok, errors: r.errors.map(plain), warnings: r.warnings.map(plain), summary: r.summary }, null, 2));
  } else if (format === 'github') {
    // GitHub Actions workflow commands: each problem becomes an annotation on its file
    for (const p of [...r.errors, ...r.warnings]) {
      io.out(`::${p.severity === 'error' ? 'error' : 'warning'} file=${ghEscape(p.file, true)}${p.line ? `,line=${p.line}` : ''},title=${ghEscape(p.rule, true)}::${ghEscape(`${p.pointer || '/'}: ${p.message}`, false)}`);
    }
    io.out(r.summary);
  } else {
    for (const p of r.errors) io.out(io.style.red(formatProblem(p)));
    for (const p of r.warnings) io.out(io.style.yellow(formatProblem(p)));
    io.out(r.ok ? io.style.green(r.summary) : io.style.bold(r.summary));
  }
  return r.ok ? EXIT.ok : EXIT.problems;
}

function ghEscape(value: string, property: boolean): string {
  let s = value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) s = s.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return s;
}

export function parseLintFormat(value: string | undefined): LintFormat {
  if (value === undefined) return 'text';
  if (!(LINT_FORMATS as string[]).includes(value)) throw new UsageError(`--format must be one of ${LINT_FORMATS.join(', ')} (got "${value}")`);
  return value as LintFormat;
}
