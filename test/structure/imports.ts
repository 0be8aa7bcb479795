// The import graph of src/, read with TypeScript's own import scanner: every import counts, type-only and
// dynamic ones too. The structure tests (no cycles, the layers) read it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from '../../src/config.js';

export const SRC = path.join(REPO_ROOT, 'src');

/** Every .ts file under a folder, relative to src/. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path.relative(SRC, full)] : [];
  });
}

/** The src/ files a file imports (relative specifiers only; packages are outside the graph). */
function importsOf(file: string, known: Set<string>): string[] {
  const info = ts.preProcessFile(fs.readFileSync(path.join(SRC, file), 'utf8'), true, true);
  const targets = new Set<string>();
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const target = path.normalize(path.join(path.dirname(file), ref.fileName)).replace(/\.js$/, '.ts');
    const candidates = [target, `${target}.ts`, path.join(target, 'index.ts')];
    const found = candidates.find((c) => known.has(c));
    assert.ok(found, `${file} imports ${ref.fileName}, which is not a file in src/`);
    targets.add(found);
  }
  return [...targets];
}

/** Each .ts file of src/ (relative to src/) and the src/ files it imports. */
export function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, known)]));
}
