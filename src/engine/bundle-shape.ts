// A bundle rendered with placeholders for its late-bound values (late-binding.ts), prepared so new values
// cost little: each file is kept as the pieces between the placeholders, as text (for the bundle), as
// UTF-8 (for its sha256, updated piece by piece), and the API's answer (JSON.stringify of the bundle) is
// kept as JSON-encoded buffers with gaps for the values and the stack record, so a new answer is those
// buffers copied into one, never JSON-encoded again.
import crypto from 'node:crypto';
import type { Bundle } from './bundle.js';
import { LATE_SCALARS, PLACEHOLDERS } from './late-binding.js';
import { ENV_EXAMPLE_FILE, fileHash, imagePins, PROVENANCE_FILE } from './provenance.js';

interface ShapeFile {
  pieces: string[];
  /** which value goes after each piece but the last (an index into the values) */
  slots: number[];
  /** UTF-8 of each piece, for the hash (none for a file without a placeholder: its hash is made once) */
  raw: Buffer[];
  /** with no placeholder: the hash, made once */
  hash?: string;
}

export interface BoundFiles {
  entries: [string, string][];
  hashes: Map<string, string>;
}

/**
 * The answer's JSON as fixed buffers with gaps between them: a value (its index in LATE_SCALARS; bindable
 * values need no JSON escape, so their JSON is themselves) or the stack record, JSON-encoded per request.
 */
interface AnswerLayout { fixed: Buffer[]; gaps: (number | 'record')[]; smallLength: number }

/** A fixed piece this long goes out as the shared buffer it is; shorter ones are copied (a write costs more). */
const SHARED_PIECE_BYTES = 1024;

const SLOT = new Map(LATE_SCALARS.map((s, i) => [s.placeholder, i]));
const NAME_SLOT = LATE_SCALARS.findIndex((s) => s.field === 'name');

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
        hash: pieces.length === 1 ? fileHash(content) : undefined,
      });
    }
    this.answer = this.answerLayout();
    this.pins = fixedPins(bundle.files[ENV_EXAMPLE_FILE] ?? '');
  }

  private readonly answer: AnswerLayout;

  /**
   * The image pins of every bundle of this shape, when no value lands in one. A line matches the pin
   * pattern before binding exactly when it does after: a value, like its placeholder, holds no space,
   * '#', quote or line break (so it never ends a pin's reference), and both hold lower-case letters (so
   * neither ever makes an upper-case variable name). undefined when a value is part of a pin.
   */
  readonly pins: Readonly<Record<string, string>> | undefined;

  /**
   * JSON.stringify of the bundle bound with these values and this stack record, as UTF-8 chunks: the
   * shape's large pieces as they are (shared by every answer of the shape), and between them the small
   * pieces with the values and the record, copied into one scratch buffer of a few kB. Copying the whole
   * answer into one buffer per request was measured: its ~250 kB outside the heap brought a full GC
   * every few dozen requests.
   */
  json(values: readonly string[], record: string): Buffer[] {
    const { fixed, gaps, smallLength } = this.answer;
    const recordJson = JSON.stringify(record);
    let length = smallLength;
    for (const gap of gaps) length += Buffer.byteLength(gap === 'record' ? recordJson : values[gap]);
    const scratch = Buffer.allocUnsafe(length);
    const chunks: Buffer[] = [];
    let at = 0;
    let runStart = 0;
    const put = (piece: Buffer) => {
      if (piece.length < SHARED_PIECE_BYTES) {
        at += piece.copy(scratch, at);
        return;
      }
      if (at > runStart) chunks.push(scratch.subarray(runStart, at));
      chunks.push(piece);
      runStart = at;
    };
    put(fixed[0]);
    for (let i = 0; i < gaps.length; i++) {
      const gap = gaps[i];
      at += scratch.write(gap === 'record' ? recordJson : values[gap], at);
      put(fixed[i + 1]);
    }
    if (at > runStart) chunks.push(scratch.subarray(runStart, at));
    return chunks;
  }

  private answerLayout(): AnswerLayout {
    const fixed: Buffer[] = [];
    const gaps: (number | 'record')[] = [];
    let text = '{"name":"';
    const gap = (g: number | 'record') => {
      fixed.push(Buffer.from(text));
      gaps.push(g);
      text = '';
    };
    gap(NAME_SLOT);
    text += '","files":{';
    Object.keys(this.bundle.files).forEach((file, i) => {
      text += `${i ? ',' : ''}${JSON.stringify(file)}:`;
      const f = this.files.get(file);
      if (!f) return gap('record');
      text += '"';
      f.pieces.forEach((piece, j) => {
        if (j) gap(f.slots[j - 1]);
        text += JSON.stringify(piece).slice(1, -1);
      });
      text += '"';
    });
    text += `},"summary":${JSON.stringify(this.bundle.summary)}}`;
    fixed.push(Buffer.from(text));
    return { fixed, gaps, smallLength: fixed.reduce((n, b) => n + (b.length < SHARED_PIECE_BYTES ? b.length : 0), 0) };
  }

  /** The files with the values bound (in LATE_SCALARS order) and their sha256. */
  bind(values: readonly string[]): BoundFiles {
    const valueBufs = values.map((v) => Buffer.from(v));
    const entries: [string, string][] = [];
    const hashes = new Map<string, string>();
    for (const [file, f] of this.files) {
      if (f.pieces.length === 1) {
        entries.push([file, f.pieces[0]]);
        hashes.set(file, f.hash!);
        continue;
      }
      // concatenation makes a rope of the pieces (no copy until someone reads the text)
      let text = f.pieces[0];
      const hash = crypto.createHash('sha256').update(f.raw[0]);
      for (let i = 1; i < f.pieces.length; i++) {
        const slot = f.slots[i - 1];
        text = text + values[slot] + f.pieces[i];
        hash.update(valueBufs[slot]).update(f.raw[i]);
      }
      entries.push([file, text]);
      hashes.set(file, hash.digest('hex'));
    }
    return { entries, hashes };
  }
}

function fixedPins(envText: string): Readonly<Record<string, string>> | undefined {
  const pins = imagePins(envText);
  return Object.entries(pins).some(([key, ref]) => `${key}=${ref}`.search(PLACEHOLDERS) >= 0) ? undefined : Object.freeze(pins);
}
