// A bundle rendered with the placeholder name (name-binding.ts), prepared so a new name costs little:
// each file is kept as the pieces between the placeholders, as text (for the bundle), as UTF-8 (for its
// sha256, updated piece by piece) and as JSON-escaped UTF-8 (for the API's answer, written as these
// shared buffers in one gathered write, never joined).
// Nothing the size of the bundle is built on the JavaScript heap for a new name.
import crypto from 'node:crypto';
import type { Bundle } from './generate.js';
import { NAME_PLACEHOLDER } from './name-binding.js';
import { fileHash, PROVENANCE_FILE } from './provenance.js';

interface ShapeFile {
  pieces: string[];
  /** UTF-8 of each piece, for the hash (none for a file without the placeholder: its hash is made once) */
  raw: Buffer[];
  /** UTF-8 of each piece JSON-escaped (no quotes), for the answer */
  json: Buffer[];
  /** with no placeholder: the hash, made once */
  hash?: string;
}

const QUOTE = Buffer.from('"');

export class BundleShape {
  private readonly files = new Map<string, ShapeFile>();

  constructor(readonly bundle: Bundle) {
    for (const [file, content] of Object.entries(bundle.files)) {
      if (file === PROVENANCE_FILE) continue;
      const pieces = content.split(NAME_PLACEHOLDER);
      this.files.set(file, {
        pieces,
        raw: pieces.length === 1 ? [] : pieces.map((p) => Buffer.from(p)),
        json: pieces.map((p) => Buffer.from(JSON.stringify(p).slice(1, -1))),
        hash: pieces.length === 1 ? fileHash(content) : undefined,
      });
    }
  }

  /** The files with the name bound, their sha256, and the JSON of each as buffers. */
  bind(name: string): { entries: [string, string][]; hashes: Map<string, string>; json: Map<string, Buffer[]> } {
    // a stack name holds only [a-z0-9_-]: its JSON is itself
    const nameBuf = Buffer.from(name);
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
        text = text + name + f.pieces[i];
        hash.update(nameBuf).update(f.raw[i]);
        chunks.push(nameBuf, f.json[i]);
      }
      chunks.push(QUOTE);
      entries.push([file, text]);
      hashes.set(file, hash.digest('hex'));
      json.set(file, chunks);
    }
    return { entries, hashes, json };
  }
}
