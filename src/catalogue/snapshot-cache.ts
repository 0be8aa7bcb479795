// A start-up shortcut for `npm start`: the checked catalogue saved as JSON, keyed by a hash of every file
// under the plugin and catalogue folders, the schemas and the loader's own code (with the engine, whose
// renderer the loader's template check runs). On a hit the YAML parsing, schema checks, rules and render
// check are skipped: they already passed for exactly these bytes. Any change (an operator dropping in a
// folder, a new loader) misses, loads in full and rewrites the file.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_HASH } from '../schemas.js';
import { loadCatalogue, type LoadResult } from './load.js';
import type { Problem } from './problems.js';
import type { CatalogueDirs, RawCatalogue } from './read.js';
import { buildSnapshot } from './snapshot.js';

interface CacheFile { key: string; raw: RawCatalogue; warnings: Problem[] }

export function loadCatalogueWithCache(dirs: CatalogueDirs, cacheFile: string): LoadResult & { fromCache: boolean } {
  const started = performance.now();
  const key = cacheKey(dirs);
  const cached = readCache(cacheFile, key);
  if (cached) {
    return { catalogue: buildSnapshot(cached.raw), errors: [], warnings: cached.warnings, loadMs: performance.now() - started, fromCache: true };
  }
  const result = loadCatalogue(dirs);
  if (result.raw && result.catalogue) writeCache(cacheFile, { key, raw: result.raw, warnings: result.warnings });
  return { ...result, fromCache: false };
}

function cacheKey(dirs: CatalogueDirs): string {
  const hash = crypto.createHash('sha256').update(SCHEMA_HASH);
  const loaderDir = path.dirname(fileURLToPath(import.meta.url));
  // the render check (engine/template-check.ts) runs the engine and the eta configuration: their code is a loader input too
  const sourceDir = path.dirname(loaderDir);
  const templating = fs.readdirSync(sourceDir).filter((name) => name.startsWith('templating.')).map((name) => path.join(sourceDir, name));
  const code = [...listFiles(loaderDir), ...listFiles(path.join(sourceDir, 'engine')), ...templating];
  for (const file of [...code, ...listFiles(dirs.plugins), ...listFiles(dirs.catalogue)]) {
    hash.update(file).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : e.isFile() ? [path.join(dir, e.name)] : []));
}

function readCache(file: string, key: string): CacheFile | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8'), revive) as CacheFile;
    return parsed.key === key ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, content: CacheFile): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(content, (_, v) => (v instanceof Map ? { $map: [...v] } : v)));
    fs.renameSync(`${file}.tmp`, file);
  } catch {
    // a read-only install simply loads in full at every start
  }
}

function revive(_: string, value: unknown): unknown {
  return value && typeof value === 'object' && '$map' in value ? new Map((value as { $map: [string, unknown][] }).$map) : value;
}
