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
// too close to the stamp to tell by time is hashed. docs/decisions.md has the reasoning.
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

/** What the metadata stamp says of the inputs, and when it was taken (ms since the epoch). */
interface Stamp { metadata: string; takenAt: number }

/**
 * A file changed within this long before the stamp was taken might share its timestamps with the stamped
 * state (coarse file-system clocks tick in up to 2 s), so it is checked by content.
 */
const UNSURE_MS = 2_000;

/** The catalogue through the snapshot in `cacheFile` (the server and the CLI share it); '' loads in full. */
export function loadCatalogueWithCache(dirs: CatalogueDirs, cacheFile: string): LoadResult & { fromCache: boolean } {
  if (!cacheFile) return { ...loadCatalogue(dirs), fromCache: false };
  const started = performance.now();
  const files = inputFiles(dirs);
  // the metadata before the contents: a file written after this point has a newer ctime than the stamp
  const stamp: Stamp = { takenAt: Date.now(), metadata: '' };
  const metadata = inputMetadata(files);
  stamp.metadata = metadata.hash;
  const header = readHeader(cacheFile);
  const trusted = header?.stamp?.metadata === metadata.hash && metadata.newest < header.stamp.takenAt - UNSURE_MS;
  const key = trusted ? header.key : contentKey(files);
  const cached = readCache(cacheFile, key);
  if (cached) {
    // verified by content just now: stamp it so the next start can skip the hashing (a header without a
    // stamp, written by an older version, is too short to stamp in place)
    if (!trusted && header?.stamp) writeStamp(cacheFile, key, stamp);
    else if (!trusted) writeCache(cacheFile, cached, stamp);
    return { catalogue: buildSnapshot(cached.raw), errors: [], warnings: cached.warnings, loadMs: performance.now() - started, fromCache: true };
  }
  const result = loadCatalogue(dirs);
  if (result.raw && result.catalogue) writeCache(cacheFile, { key, raw: result.raw, warnings: result.warnings }, stamp);
  return { ...result, fromCache: false };
}

/** Every input of the load, in a fixed order: the loader's and engine's code, the plugins, the catalogue. */
function inputFiles(dirs: CatalogueDirs): string[] {
  const loaderDir = path.dirname(fileURLToPath(import.meta.url));
  // the render check (engine/template-check.ts) runs the engine and the eta configuration: their code is a loader input too
  const sourceDir = path.dirname(loaderDir);
  const templating = fs.readdirSync(sourceDir).filter((name) => name.startsWith('templating.')).map((name) => path.join(sourceDir, name));
  const code = [...listFiles(loaderDir), ...listFiles(path.join(sourceDir, 'engine')), ...templating];
  return [...code, ...listFiles(dirs.plugins), ...listFiles(dirs.catalogue)];
}

function contentKey(files: string[]): string {
  const hash = crypto.createHash('sha256').update(SCHEMA_HASH);
  for (const file of files) hash.update(file).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/**
 * A hash of each input's path, size, mtime (whole ms: the precision tools set it back with), ctime and
 * inode, and the newest of those times.
 */
function inputMetadata(files: string[]): { hash: string; newest: number } {
  const hash = crypto.createHash('sha256').update(SCHEMA_HASH);
  let newest = 0;
  for (const file of files) {
    const st = fs.statSync(file);
    hash.update(`${file}\0${st.size} ${Math.trunc(st.mtimeMs)} ${st.ctimeMs} ${st.ino}\0`);
    newest = Math.max(newest, st.mtimeMs, st.ctimeMs);
  }
  return { hash: hash.digest('hex'), newest };
}

/** The files under dir, sorted by name at each level (a folder's files where the folder sorts). */
function listFiles(dir: string, into: string[] = []): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return into;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (e.isDirectory()) listFiles(path.join(dir, e.name), into);
    else if (e.isFile()) into.push(path.join(dir, e.name));
  }
  return into;
}

// The file's first line is a fixed-width header, the content key and the metadata stamp, then the JSON:
// a stale snapshot is told without parsing it, and the stamp is rewritten in place (the key beside it
// does not change, so a reader catching it half-written only sees a stamp that does not match).
const HASH_HEX = 64;
const TIME_DIGITS = 15;
/** the header line without its newline: key, space, stamp hash, space, time */
const HEADER_LENGTH = HASH_HEX * 2 + TIME_DIGITS + 2;

function headerLine(key: string, stamp: Stamp): string {
  return `${key} ${stamp.metadata} ${String(stamp.takenAt).padStart(TIME_DIGITS, '0')}`;
}

function readHeader(file: string): { key: string; stamp?: Stamp } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const bytes = Buffer.alloc(HEADER_LENGTH + 1);
    const n = fs.readSync(fd, bytes, 0, bytes.length, 0);
    const [key, metadata, takenAt] = bytes.toString('latin1', 0, n).split('\n', 1)[0].split(' ');
    if (key?.length !== HASH_HEX) return undefined;
    return metadata?.length === HASH_HEX && takenAt?.length === TIME_DIGITS ? { key, stamp: { metadata, takenAt: Number(takenAt) } } : { key };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
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
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // a temporary name of this process's own: the server and a CLI may write the snapshot at once
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${headerLine(content.key, stamp)}\n${JSON.stringify(content, (_, v) => (v instanceof Map ? { $map: [...v] } : v))}`);
    fs.renameSync(tmp, file);
  } catch {
    // a read-only install simply loads in full at every start
  }
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
