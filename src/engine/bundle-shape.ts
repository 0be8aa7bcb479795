// A bundle rendered with placeholders for its late-bound values (late-binding.ts), prepared so new values
// cost little: each file is kept as the pieces between the placeholders, as text (for the bundle), as
// UTF-8 (for its sha256, updated piece by piece) and as JSON-escaped UTF-8 (for the API's answer,
// written as these shared buffers in one gathered write, never joined).
// Nothing the size of the bundle is built on the JavaScript heap for new values.
import crypto from 'node:crypto';
import type { Bundle } from './bundle.js';
import { LATE_SCALARS, PLACEHOLDERS } from './late-binding.js';
import { fileHash, PROVENANCE_FILE } from './provenance.js';

interface ShapeFile {
  pieces: string[];
  /** which value goes after each piece but the last (an index into the values) */
  slots: number[];
  /** UTF-8 of each piece, for the hash (none for a file without a placeholder: its hash is made once) */
  raw: Buffer[];
  /** UTF-8 of each piece JSON-escaped (no quotes), for the answer */
  json: Buffer[];
  /** with no placeholder: the hash, made once */
  hash?: string;
}

export interface BoundFiles {
  entries: [string, string][];
  hashes: Map<string, string>;
  /** the JSON of each file (quoted) as buffers */
  json: Map<string, Buffer[]>;
}

const QUOTE = Buffer.from('"');
const SLOT = new Map(LATE_SCALARS.map((s, i) => [s.placeholder, i]));

export class BundleShape {
  private readonly files = new Map<string, ShapeFile>();

  constructor(readonly bundle: Bundle) {
    for (const [file, content] of Object.entries(bundle.files)) {
      if (file === PROVENANCE_FILE) continue;
      const pieces: string[] = [];
      const slots: number[] = [];
      let last = 0;
      for (const m of content.matchAll(PLACEHOLDERS)) {
        pieces.push(content.slice(last, m.index));
        slots.push(SLOT.get(m[0])!);
        last = m.index + m[0].length;
      }
      pieces.push(content.slice(last));
      this.files.set(file, {
        pieces,
        slots,
        raw: pieces.length === 1 ? [] : pieces.map((p) => Buffer.from(p)),
        json: pieces.map((p) => Buffer.from(JSON.stringify(p).slice(1, -1))),
        hash: pieces.length === 1 ? fileHash(content) : undefined,
      });
    }
  }

  /** The files with the values bound (in LATE_SCALARS order), their sha256, and the JSON of each as buffers. */
  bind(values: readonly string[]): BoundFiles {
    // bindable values hold no character JSON escapes: their JSON is themselves
    const valueBufs = values.map((v) => Buffer.from(v));
    const entries: [string, string][] = [];
    const hashes = new Map<string, string>();
    const json = new Map<string, Buffer[]>();
    for (const [file, f] of this.files) {
      if (f.pieces.length === 1) {
        entries.push([file, f.pieces[0]]);
        hashes.set(file, f.hash!);
        json.set(file, [QUOTE, f.json[0], QUOTE]);
        continue;
      }
      // concatenation makes a rope of the pieces (no copy until someone reads the text)
      let text = f.pieces[0];
      const hash = crypto.createHash('sha256').update(f.raw[0]);
      const chunks = [QUOTE, f.json[0]];
      for (let i = 1; i < f.pieces.length; i++) {
        const slot = f.slots[i - 1];
        text = text + values[slot] + f.pieces[i];
        hash.update(valueBufs[slot]).update(f.raw[i]);
        chunks.push(valueBufs[slot], f.json[i]);
      }
      chunks.push(QUOTE);
      entries.push([file, text]);
      hashes.set(file, hash.digest('hex'));
      json.set(file, chunks);
    }
    return { entries, hashes, json };
  }
}
