// A start-up shortcut for `npm start` and the CLI: the checked catalogue saved as JSON, keyed by a hash of
// every file under the plugin and catalogue folders, the schemas and the loader's own code (with the engine,
// whose renderer the loader's template check runs). On a hit the YAML parsing, schema checks, rules and
// render check are skipped: they already passed for exactly these bytes. Any change (an operator dropping in
// a folder, a new loader) misses, loads in full and rewrites the file.
//
// Hashing every input (about 4 MB in 540 files) was most of a hit's cost, so the file also records the
// inputs' metadata as last verified (path, size, mtime, ctime, inode of each) and when: while that stamp
// matches and every input was already older than the stamp, the content key is taken as verified (the rule
// git uses for its index). Any write to a file moves its ctime, which no tool can set back; a file changed
// too close to the stamp to tell by time is hashed (snapshot-stamp.ts). docs/decisions.md has the reasoning.
import { fs } from '../node-builtins.js';
import { loadCatalogue, type LoadResult } from './load.js';
import type { Problem } from './problems.js';
import type { CatalogueDirs, RawCatalogue } from './read.js';
import { buildSnapshot } from './snapshot.js';
import { checkInputs, contentKey, HASH_HEX, headerLine, type InputsCheck, type Stamp } from './snapshot-stamp.js';
import { writeFileAtomically } from '../files.js';

export { checkInputs, trustedCatalogueKey, type InputsCheck } from './snapshot-stamp.js';

interface CacheFile { key: string; raw: RawCatalogue; warnings: Problem[] }

/**
 * The catalogue through the snapshot in `cacheFile` (the server and the CLI share it); '' loads in full.
 * `key` is the content key of every input (with a snapshot file).
 */
export function loadCatalogueWithCache(dirs: CatalogueDirs, cacheFile: string, check?: InputsCheck): LoadResult & { fromCache: boolean; key?: string } {
  if (!cacheFile) return { ...loadCatalogue(dirs), fromCache: false };
  const started = performance.now();
  const { files, stamp, header, trusted } = check ?? checkInputs(dirs, cacheFile);
  const key = trusted ? header!.key : contentKey(files);
  const cached = readCache(cacheFile, key);
  if (cached) {
    // verified by content just now: stamp it so the next start can skip the hashing (a header without a
    // stamp, written by an older version, is too short to stamp in place)
    if (!trusted && header?.stamp) writeStamp(cacheFile, key, stamp);
    else if (!trusted) writeCache(cacheFile, cached, stamp);
    return { catalogue: buildSnapshot(cached.raw), errors: [], warnings: cached.warnings, loadMs: performance.now() - started, fromCache: true, key };
  }
  const result = loadCatalogue(dirs);
  if (result.raw && result.catalogue) writeCache(cacheFile, { key, raw: result.raw, warnings: result.warnings }, stamp);
  return { ...result, fromCache: false, key };
}

function readCache(file: string, key: string): CacheFile | undefined {
  try {
    const bytes = fs.readFileSync(file);
    const newline = bytes.indexOf(10);
    if (newline < 0 || bytes.toString('latin1', 0, Math.min(newline, HASH_HEX)) !== key) return undefined;
    const parsed = revive(JSON.parse(bytes.toString('utf8', newline + 1))) as CacheFile;
    return parsed.key === key ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, content: CacheFile, stamp: Stamp): void {
  // a read-only install simply loads in full at every start
  writeFileAtomically(file, `${headerLine(content.key, stamp)}\n${JSON.stringify(content, (_, v) => (v instanceof Map ? { $map: [...v] } : v))}`);
}

/** Rewrites the header's stamp in place (same length, same key). */
function writeStamp(file: string, key: string, stamp: Stamp): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, headerLine(key, stamp), 0, 'latin1');
  } catch {
    // read-only: the next start hashes again
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The parsed JSON with each { $map } back as a Map, every object frozen on the way (the snapshot's
 * deepFreeze then finds them frozen: one walk, not two; a walk: JSON.parse's reviver costs several times
 * more).
 */
function revive(value: unknown): unknown {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = revive(value[i]);
    return Object.freeze(value);
  }
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if ('$map' in record) return Object.freeze(new Map((record.$map as [string, unknown][]).map(([k, v]) => [k, revive(v)])));
  for (const k in record) record[k] = revive(record[k]);
  return Object.freeze(record);
}
