// Request shapes kept on disk, for a process that lives for one request: `stackwright generate`. The
// server keeps shapes in memory (generate.ts); a CLI run would otherwise render every stack in full, and
// rendering with cold code was a third of its time. A shape is the bundle rendered with placeholders
// (late-binding.ts), stored only after binding its own request's values reproduced that request's full
// render byte for byte, and found again only under the same inputs: the catalogue's content key (which
// covers the loader's and the engine's code), the bundle templates' content and the version.
import crypto from 'node:crypto';
import { fs } from '../node-builtins.js';
import path from 'node:path';
import { filesUnder, writeFileAtomically } from '../files.js';
import { deepFreeze } from '../freeze.js';
import type { Bundle } from '../bundle/bundle.js';
import type { Warning } from '../errors.js';

/** What is kept of a shape: its placeholder bundle, and the resolver's warnings for its requests (they never depend on a late-bound value). */
export interface StoredShape {
  bundle: Bundle;
  warnings: Warning[];
}

/** Shapes kept at most; the least recently written go first. */
const MAX_SHAPES = 64;

export class ShapeStore {
  /** @param inputs what every stored shape depends on (ShapeStore.inputsKey) */
  constructor(readonly dir: string, private readonly inputs: string) {}

  /** The key of everything a shape depends on besides its request. */
  static inputsKey(catalogueKey: string, templatesDir: string, version: string): string {
    const hash = crypto.createHash('sha256').update(`${catalogueKey}\0${version}\0`);
    for (const file of filesUnder(templatesDir)) hash.update(path.relative(templatesDir, file)).update('\0').update(fs.readFileSync(file)).update('\0');
    return hash.digest('hex');
  }

  private fileOf(shapeKey: string): string {
    return path.join(this.dir, `${crypto.createHash('sha256').update(`${this.inputs}\0${shapeKey}`).digest('hex')}.json`);
  }

  /** The shape stored for this request shape under these inputs; undefined when there is none, or it is unreadable. */
  get(shapeKey: string): StoredShape | undefined {
    let stored: unknown;
    try {
      stored = JSON.parse(fs.readFileSync(this.fileOf(shapeKey), 'utf8'));
    } catch {
      return undefined;
    }
    // the file names its own inputs and request shape: a file that does not is not used
    const s = stored as { inputs?: unknown; shape?: unknown; bundle?: Bundle; warnings?: unknown };
    if (s.inputs !== this.inputs || s.shape !== shapeKey || !wellFormed(s.bundle) || !Array.isArray(s.warnings)) return undefined;
    return deepFreeze({ bundle: s.bundle, warnings: s.warnings as Warning[] });
  }

  /** Keeps a shape; a store that cannot be written (a read-only install) keeps none, and says nothing. */
  put(shapeKey: string, shape: StoredShape): void {
    if (writeFileAtomically(this.fileOf(shapeKey), JSON.stringify({ inputs: this.inputs, shape: shapeKey, ...shape }))) this.prune();
  }

  /** Drops the oldest shapes beyond MAX_SHAPES (shapes of earlier inputs age out this way too). */
  private prune(): void {
    const entries = fs.readdirSync(this.dir).filter((name) => name.endsWith('.json'));
    if (entries.length <= MAX_SHAPES) return;
    const byAge = entries.map((name) => ({ name, mtime: fs.statSync(path.join(this.dir, name)).mtimeMs })).sort((a, b) => a.mtime - b.mtime);
    for (const { name } of byAge.slice(0, entries.length - MAX_SHAPES)) fs.rmSync(path.join(this.dir, name), { force: true });
  }
}

/** A bundle as the generator makes it: a name, files of text, a summary. */
function wellFormed(bundle: unknown): bundle is Bundle {
  const b = bundle as Partial<Bundle> | undefined;
  return typeof b?.name === 'string' && typeof b.summary === 'object' && b.summary !== null
    && typeof b.files === 'object' && b.files !== null && Object.values(b.files).every((content) => typeof content === 'string');
}
