// A start-up shortcut for `npm start` and the CLI: the checked catalogue saved as JSON, keyed by a hash of
// every file under the plugin and catalogue folders, the schemas and the loader's own code (with the engine,
// whose renderer the loader's template check runs). On a hit the YAML parsing, schema checks, rules and
// render check are skipped: they already passed for exactly these bytes. Any change (an operator dropping in
// a folder, a new loader) misses, loads in full and rewrites the file.
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

/** The catalogue through the snapshot in `cacheFile` (the server and the CLI share it); '' loads in full. */
export function loadCatalogueWithCache(dirs: CatalogueDirs, cacheFile: string): LoadResult & { fromCache: boolean } {
  if (!cacheFile) return { ...loadCatalogue(dirs), fromCache: false };
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

// The file is the key on its first line, then the JSON: a stale snapshot is told without parsing it.
function readCache(file: string, key: string): CacheFile | undefined {
  try {
    const bytes = fs.readFileSync(file);
    const newline = bytes.indexOf(10);
    if (newline < 0 || bytes.toString('latin1', 0, newline) !== key) return undefined;
    const parsed = revive(JSON.parse(bytes.toString('utf8', newline + 1))) as CacheFile;
    return parsed.key === key ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, content: CacheFile): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // a temporary name of this process's own: the server and a CLI may write the snapshot at once
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${content.key}\n${JSON.stringify(content, (_, v) => (v instanceof Map ? { $map: [...v] } : v))}`);
    fs.renameSync(tmp, file);
  } catch {
    // a read-only install simply loads in full at every start
  }
}

/** The parsed JSON with each { $map } back as a Map (a walk: JSON.parse's reviver costs several times more). */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = revive(value[i]);
    return value;
  }
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if ('$map' in record) return new Map((record.$map as [string, unknown][]).map(([k, v]) => [k, revive(v)]));
  for (const k of Object.keys(record)) record[k] = revive(record[k]);
  return record;
}
