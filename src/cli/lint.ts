// `stackwright lint [folder...]`: the loader's checks for plugin authors. Without folders, the whole
// catalogue the service would load. With folders, each is checked as it would join that catalogue (a
// copy of the catalogue with the folder dropped in, replacing a plugin of the same id), and only the
// folder's own problems are reported, named by the folder's real path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalogue, type LoadResult } from '../catalogue/load.js';
import { formatProblem, type Problem } from '../catalogue/problems.js';
import { FOLDER_KINDS } from '../catalogue/read.js';
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
    const places: { copy: string; real: string }[] = [];
    for (const folder of folders) {
      const real = path.relative(process.cwd(), path.resolve(folder)) || '.';
      const kind = FOLDER_KINDS.find((k) => fs.existsSync(path.join(folder, k.manifest)));
      if (!kind) {
        errors.push({
          severity: 'error', file: real, pointer: '', rule: 'file.unreadable',
          message: `no plugin manifest here: a plugin folder holds one of ${FOLDER_KINDS.map((k) => k.manifest).join(', ')}`,
        });
        continue;
      }
      const id = path.basename(path.resolve(folder));
      const copy = path.join('plugins', kind.folder, id);
      fs.rmSync(path.join(root, copy), { recursive: true, force: true });
      fs.cpSync(folder, path.join(root, copy), { recursive: true });
      places.push({ copy, real });
    }
    const result = loadCatalogue({ plugins, catalogue: path.join(root, 'catalogue') });
    const own = (p: Problem): Problem | undefined => {
      const place = places.find((pl) => p.file === pl.copy || p.file.startsWith(`${pl.copy}/`));
      return place ? { ...p, file: path.join(place.real, p.file.slice(place.copy.length + 1)) } : undefined;
    };
    const mapped = (list: Problem[]) => list.map(own).filter((p): p is Problem => p !== undefined);
    const folderErrors = [...errors, ...mapped(result.errors)];
    const folderWarnings = mapped(result.warnings);
    const summary = `${folders.length} folder(s) checked against a catalogue of ${result.raw?.services.length ?? 0} services: ${folderErrors.length} error(s), ${folderWarnings.length} warning(s)`;
    return report(folderErrors, folderWarnings, summary);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
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
