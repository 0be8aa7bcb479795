// The catalogue snapshot's inputs against its stamp (snapshot-cache.ts): the inputs listed and stat-ed,
// never read, and the snapshot file's header that records their metadata as last verified. Kept apart
// from the snapshot itself so a caller that only asks whether the catalogue changed (the CLI's stored
// shapes) loads none of the loader.
import crypto from 'node:crypto';
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCHEMA_HASH } from '../schemas.js';
import type { CatalogueDirs } from './read.js';
import { filesUnder, writeFileAtomically } from '../files.js';

/** What the metadata stamp says of the inputs, and when it was taken (ms since the epoch). */
export interface Stamp { metadata: string; takenAt: number }

/**
 * A file changed within this long before the stamp was taken might share its timestamps with the stamped
 * state (coarse file-system clocks tick in up to 2 s), so it is checked by content.
 */
export const UNSURE_MS = 2_000;

/**
 * The inputs as they stand against the snapshot's stamp: one listing and stat of every input, no file
 * read. Taken before a load (loadCatalogueWithCache takes it, or one taken already).
 */
export interface InputsCheck {
  readonly files: string[];
  readonly stamp: Stamp;
  readonly header: { key: string; stamp?: Stamp } | undefined;
  /** the stamp vouches for the snapshot's key: nothing changed since it was verified by content */
  readonly trusted: boolean;
}

export function checkInputs(dirs: CatalogueDirs, cacheFile: string): InputsCheck {
  const files = inputFiles(dirs, cacheFile);
  // the metadata before the contents: a file written after this point has a newer ctime than the stamp
  const stamp: Stamp = { takenAt: Date.now(), metadata: '' };
  const metadata = inputMetadata(files);
  stamp.metadata = metadata.hash;
  const header = readHeader(cacheFile);
  const trusted = header?.stamp?.metadata === metadata.hash && metadata.newest < header.stamp.takenAt - UNSURE_MS;
  return { files, stamp, header, trusted };
}

/** The content key of the catalogue on disk when the stamp vouches for it, without reading a file; else undefined. */
export function trustedCatalogueKey(check: InputsCheck): string | undefined {
  return check.trusted ? check.header!.key : undefined;
}

/** The folders of src/ (beside this one) that hold the engine's code: the model, the emitters, the bundle, the caches, the pipeline. */
const ENGINE_FOLDERS = ['model', 'emit', 'bundle', 'cache', 'pipeline'];

/** Every input of the load, in a fixed order: the loader's and engine's code, the plugins, the catalogue. */
function inputFiles(dirs: CatalogueDirs, cacheFile: string): string[] {
  const loaderDir = path.dirname(fileURLToPath(import.meta.url));
  // the render check (template-check.ts) runs the engine and the eta configuration: their code is a loader input
  // too, and the stored request shapes (keyed by this key) come from the whole pipeline's code
  const sourceDir = path.dirname(loaderDir);
  // listed each time: the snapshot and its listings are written into this folder (dist/)
  const templating = fs.readdirSync(sourceDir).filter((name) => name.startsWith('templating.')).map((name) => path.join(sourceDir, name));
  const engine = ENGINE_FOLDERS.map((name) => path.join(sourceDir, name));
  const trees = listTrees([loaderDir, ...engine, dirs.plugins, dirs.catalogue], `${cacheFile}.inputs`);
  const [loader, plugins, catalogue] = [trees[0], trees[trees.length - 2], trees[trees.length - 1]];
  return [...loader.files, ...trees.slice(1, -2).flatMap((t) => t.files), ...templating, ...plugins.files, ...catalogue.files];
}

// Listing every folder of the inputs (~360) was most of the check. A folder's entries change only with its
// mtime and ctime (adding, removing or renaming an entry sets both), so the trees' last listing is kept
// beside the snapshot with each folder's metadata, and reused while every folder's metadata is as it was
// and was already older than that listing by a coarse clock tick: a stat a folder instead of a listing.

/** A folder tree as listed: each folder's path, mtime, ctime and inode (-1s: the folder did not exist), and its files in order. */
interface TreeListing { folders: [string, number, number, number][]; files: string[] }
interface Listings { takenAt: number; trees: Record<string, TreeListing> }

/** The trees under `roots`, each from the saved listing while it holds, else listed now (and the listings saved). */
function listTrees(roots: string[], listingsFile: string): TreeListing[] {
  const saved = readListings(listingsFile);
  const takenAt = Date.now();
  let listed = false;
  const trees = roots.map((root) => {
    const kept = saved?.trees[root];
    if (kept && treeUnchanged(kept, saved!.takenAt)) return kept;
    listed = true;
    return listTree(root);
  });
  if (listed) writeListings(listingsFile, { takenAt, trees: Object.fromEntries(roots.map((root, i) => [root, trees[i]])) });
  return trees;
}

function treeUnchanged(tree: TreeListing, takenAt: number): boolean {
  if (!Array.isArray(tree.folders) || !Array.isArray(tree.files) || tree.folders.length === 0) return false;
  return tree.folders.every(([folder, mtime, ctime, ino]) => {
    const st = fs.statSync(folder, { throwIfNoEntry: false });
    if (!st) return ino === -1;
    return st.isDirectory() && st.mtimeMs === mtime && st.ctimeMs === ctime && st.ino === ino && Math.max(mtime, ctime) < takenAt - UNSURE_MS;
  });
}

/** The files under root (files.ts's order), and every folder's metadata. */
function listTree(root: string): TreeListing {
  const folders: TreeListing['folders'] = [];
  const files = filesUnder(root, (dir) => {
    // the folder's metadata before its entries: an entry changed after this moves its ctime past it
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (!st?.isDirectory()) {
      if (dir === root) folders.push([dir, -1, -1, -1]);
      return false;
    }
    folders.push([dir, st.mtimeMs, st.ctimeMs, st.ino]);
    return true;
  });
  return { folders, files };
}

function readListings(file: string): Listings | undefined {
  try {
    const listings = JSON.parse(fs.readFileSync(file, 'utf8')) as Listings;
    return typeof listings.takenAt === 'number' && listings.trees && typeof listings.trees === 'object' ? listings : undefined;
  } catch {
    return undefined;
  }
}

function writeListings(file: string, listings: Listings): void {
  // a read-only install lists every time
  writeFileAtomically(file, JSON.stringify(listings));
}

export function contentKey(files: string[]): string {
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

// The file's first line is a fixed-width header, the content key and the metadata stamp, then the JSON:
// a stale snapshot is told without parsing it, and the stamp is rewritten in place (the key beside it
// does not change, so a reader catching it half-written only sees a stamp that does not match).
export const HASH_HEX = 64;
const TIME_DIGITS = 15;
/** the header line without its newline: key, space, stamp hash, space, time */
const HEADER_LENGTH = HASH_HEX * 2 + TIME_DIGITS + 2;

export function headerLine(key: string, stamp: Stamp): string {
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

