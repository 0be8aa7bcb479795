// A bundle rendered with placeholders for its late-bound values (late-binding.ts), prepared so new values
// cost little: each file is kept as the pieces between the placeholders, as text (for the bundle) and as
// UTF-8 (for its sha256, updated piece by piece). The stack record (stackwright.json) is kept the same way,
// with gaps for the values and for the sha256 of each file that holds one, so a new record is copied
// together, never built and JSON-encoded again. The API's answer (JSON.stringify of the bundle) is kept as
// JSON-encoded buffers with the same gaps, so a new answer is those buffers copied into one.
import crypto from 'node:crypto';
import type { Bundle } from '../bundle/bundle.js';
import { LATE_SCALARS, PLACEHOLDERS, placeholdersVerbatim } from './late-binding.js';
import { PROVENANCE_FILE } from '../bundle/provenance.js';

/** Where a bound text differs from its shape: a late-bound value, or the sha256 of a file holding one. */
type Gap = { value: number } | { hash: number };

/** A text with gaps: pieces[0], gaps[0], pieces[1], ... pieces[n]. */
interface GappedText { pieces: string[]; gaps: Gap[] }

/** A file of the shape: its text cut at the values, and the UTF-8 of each piece for its sha256 (none when it holds no value). */
interface ShapeFile extends GappedText { gaps: { value: number }[]; raw: Buffer[] }

/**
 * The answer's JSON as fixed buffers with gaps between them. Bindable values and hex hashes need no JSON
 * escape, so their JSON (inside a string) is themselves.
 */
interface AnswerLayout { fixed: Buffer[]; gaps: Gap[]; smallLength: number }

export interface BoundBundle {
  /** every file, the stack record included, in the shape's (sorted) order */
  files: Record<string, string>;
  /** the sha256 of each file that holds a value, in the order of their gaps */
  hashes: string[];
}

/** A fixed piece this long goes out as the shared buffer it is; shorter ones are copied (a write costs more). */
const SHARED_PIECE_BYTES = 1024;

const SLOT = new Map(LATE_SCALARS.map((s, i) => [s.placeholder, i]));
const NAME_SLOT = LATE_SCALARS.findIndex((s) => s.field === 'name');

/** Marks the sha256 of the i-th file holding a value in the record while its template is made. */
const hashMarker = (i: number) => `zq-stackwright-hash-${i}-qz`;
const GAPS = new RegExp(`${PLACEHOLDERS.source}|zq-stackwright-hash-(\\d+)-qz`, 'g');

export class BundleShape {
  private readonly files = new Map<string, ShapeFile>();
  /** the files holding a value, in the order their hashes fill the record's gaps */
  private readonly varying: string[] = [];
  private readonly record: GappedText;
  private readonly answer: AnswerLayout;

  /**
   * Throws ShapeUnusable when the record cannot be taken apart (it is not the JSON that provenance.ts
   * writes): the request is then rendered in full.
   */
  constructor(readonly bundle: Bundle) {
    for (const [file, content] of Object.entries(bundle.files)) {
      if (file === PROVENANCE_FILE) continue;
      const { pieces, gaps } = cutAt(content, PLACEHOLDERS, (m) => ({ value: SLOT.get(m[0])! }));
      if (pieces.length > 1) this.varying.push(file);
      this.files.set(file, { pieces, gaps, raw: pieces.length === 1 ? [] : pieces.map((p) => Buffer.from(p)) });
    }
    this.record = this.recordTemplate(bundle.files[PROVENANCE_FILE]);
    this.answer = this.answerLayout();
  }

  /** The record with a gap for each value and for the hash of each file holding one. */
  private recordTemplate(record: string | undefined): GappedText {
    if (record === undefined) throw new ShapeUnusable('the bundle has no stack record');
    const parsed = JSON.parse(record) as { files?: Record<string, string> };
    // the record must be exactly what JSON.stringify(…, null, 2) makes of its own data, or the gaps
    // would not stand where a new record's values do
    if (`${JSON.stringify(parsed, null, 2)}\n` !== record || !parsed.files) throw new ShapeUnusable('the stack record is not in its usual form');
    this.varying.forEach((file, i) => {
      if (!(file in parsed.files!)) throw new ShapeUnusable(`the stack record has no hash of ${file}`);
      parsed.files![file] = hashMarker(i);
    });
    return cutAt(`${JSON.stringify(parsed, null, 2)}\n`, GAPS, (m) => (m[1] === undefined ? { value: SLOT.get(m[0])! } : { hash: Number(m[1]) }));
  }

  /** The files with the values bound (in LATE_SCALARS order), the record with their hashes. */
  bind(values: readonly string[]): BoundBundle {
    const valueBufs = values.map((v) => Buffer.from(v));
    const hashes: string[] = [];
    const files: Record<string, string> = {};
    for (const file of Object.keys(this.bundle.files)) {
      const f = this.files.get(file);
      if (!f) {
        files[file] = ''; // the record, filled in below once every hash is known (keeps the order)
        continue;
      }
      if (f.pieces.length === 1) {
        files[file] = f.pieces[0];
        continue;
      }
      // concatenation makes a rope of the pieces (no copy until someone reads the text)
      let text = f.pieces[0];
      const hash = crypto.createHash('sha256').update(f.raw[0]);
      for (let i = 1; i < f.pieces.length; i++) {
        const slot = f.gaps[i - 1].value;
        text = text + values[slot] + f.pieces[i];
        hash.update(valueBufs[slot]).update(f.raw[i]);
      }
      files[file] = text;
      hashes.push(hash.digest('hex'));
    }
    const { pieces, gaps } = this.record;
    let record = pieces[0];
    for (let i = 0; i < gaps.length; i++) record = record + gapText(gaps[i], values, hashes) + pieces[i + 1];
    files[PROVENANCE_FILE] = record;
    return { files, hashes };
  }

  /**
   * JSON.stringify of the bound bundle, as UTF-8 chunks: the shape's large pieces as they are (shared by
   * every answer of the shape), and between them the small pieces with the values and hashes, copied into
   * one scratch buffer of a few kB. Copying the whole answer into one buffer per request was measured: its
   * ~250 kB outside the heap brought a full GC every few dozen requests.
   */
  json(values: readonly string[], hashes: readonly string[]): Buffer[] {
    const { fixed, gaps, smallLength } = this.answer;
    let length = smallLength;
    for (const gap of gaps) length += Buffer.byteLength(gapText(gap, values, hashes));
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
      at += scratch.write(gapText(gaps[i], values, hashes), at);
      put(fixed[i + 1]);
    }
    if (at > runStart) chunks.push(scratch.subarray(runStart, at));
    return chunks;
  }

  private answerLayout(): AnswerLayout {
    const fixed: Buffer[] = [];
    const gaps: Gap[] = [];
    let text = '{"name":"';
    const gap = (g: Gap) => {
      fixed.push(Buffer.from(text));
      gaps.push(g);
      text = '';
    };
    /** a gapped text inside a JSON string: each piece escaped on its own (escapes never span a gap) */
    const putString = ({ pieces, gaps: between }: GappedText) => {
      text += '"';
      pieces.forEach((piece, j) => {
        if (j) gap(between[j - 1]);
        text += JSON.stringify(piece).slice(1, -1);
      });
      text += '"';
    };
    gap({ value: NAME_SLOT });
    text += '","files":{';
    Object.keys(this.bundle.files).forEach((file, i) => {
      text += `${i ? ',' : ''}${JSON.stringify(file)}:`;
      putString(this.files.get(file) ?? this.record);
    });
    text += `},"summary":${JSON.stringify(this.bundle.summary)}}`;
    fixed.push(Buffer.from(text));
    return { fixed, gaps, smallLength: fixed.reduce((n, b) => n + (b.length < SHARED_PIECE_BYTES ? b.length : 0), 0) };
  }
}

/** `text` cut at each match of `pattern` (a global regex), each match the gap `gapOf` says it stands for. */
function cutAt<G extends Gap>(text: string, pattern: RegExp, gapOf: (match: RegExpMatchArray) => G): { pieces: string[]; gaps: G[] } {
  const pieces: string[] = [];
  const gaps: G[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    pieces.push(text.slice(last, m.index));
    gaps.push(gapOf(m));
    last = m.index! + m[0].length;
  }
  pieces.push(text.slice(last));
  return { pieces, gaps };
}

function gapText(gap: Gap, values: readonly string[], hashes: readonly string[]): string {
  return 'value' in gap ? values[gap.value] : hashes[gap.hash];
}

/** How to encode a bound bundle's answer from its shape (generate.ts's bundleJsonChunks asks). */
const boundAnswers = new WeakMap<Bundle, () => Buffer[]>();

/** The bundle of `values` (lateValues) bound into `shape`. */
export function bindShape(shape: BundleShape, name: string, values: readonly string[]): Bundle {
  const { files, hashes } = shape.bind(values);
  // the shape's files are in order and its summary frozen already: only these two objects are new
  const bundle: Bundle = Object.freeze({ name, files: Object.freeze(files), summary: shape.bundle.summary });
  // encoded only when asked for (the API's answer; the CLI writes files)
  boundAnswers.set(bundle, () => shape.json(values, hashes));
  return bundle;
}

/** Whether the bundle was bound into a shape (its answer comes from the shape's encoded pieces). */
export function boundIntoShape(bundle: Bundle): boolean {
  return boundAnswers.has(bundle);
}

/** The API's answer (JSON.stringify) of a bound bundle as UTF-8 chunks; undefined for a bundle rendered in full. */
export function boundAnswer(bundle: Bundle): Buffer[] | undefined {
  return boundAnswers.get(bundle)?.();
}

/** A shape whose parts cannot be told apart safely: its requests are rendered in full. */
export class ShapeUnusable extends Error {}

/** A bundle rendered with the placeholders, as a shape; null when its record cannot be taken apart. */
export function shapeOf(rendered: Bundle): BundleShape | null {
  try {
    return new BundleShape(rendered);
  } catch (e) {
    if (e instanceof ShapeUnusable) return null;
    throw e;
  }
}

/**
 * The shape of `rendered` (the request rendered with its placeholders), or null when it cannot bind
 * exactly: a placeholder in a file path or changed by a template, a record that cannot be taken apart,
 * or binding `first`'s values (`firstValues`) misses `firstRecord`, the stack record of that request's
 * full render, by a byte. The record holds the sha256 of every other file, so a file that binding does
 * not reproduce exactly (one a template derived from the name or domain) changes it. Every shape passes
 * this once before it is used: the service's, and the CLI's before it is stored.
 */
export function checkedShape(rendered: Bundle, firstRecord: string, firstValues: readonly string[]): BundleShape | null {
  const paths = Object.keys(rendered.files);
  // file paths never hold a late-bound value; a template that put one there (or transformed it) is rendered per request
  if (paths.some((f) => f.search(PLACEHOLDERS) >= 0) || !placeholdersVerbatim(paths) || !placeholdersVerbatim(Object.values(rendered.files))) return null;
  const shape = shapeOf(rendered);
  if (!shape) return null;
  return shape.bind(firstValues).files[PROVENANCE_FILE] === firstRecord ? shape : null;
}
