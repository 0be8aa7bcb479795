// stackwright.json: where a stack came from (DECISIONS "Provenance"). The request (it holds no
// secrets: those are made on the user's machine), the catalogue revision, the Stackwright version and
// the sha256 of every other generated file, so a later upgrade can tell the user's edits from ours,
// and the image pins it wrote, so a later upgrade can tell the user's pins from ours.
import crypto from 'node:crypto';
import { STACKWRIGHT_VERSION } from '../version.js';
import { CHUNK_CHARS, chunkLines, flattened } from '../text-chunks.js';
import type { FileHashes } from './parallel-hash.js';

export const PROVENANCE_FILE = 'stackwright.json';
/** The file whose `<SERVICE>_IMAGE=` lines are the image pins a generation wrote. */
export const ENV_EXAMPLE_FILE = '.env.example';

/**
 * The image pins of an env file (`<SERVICE>_IMAGE=ref`, the last line of a key wins as in Compose).
 * The record keeps those of `.env.example`, so `stackwright upgrade` can tell a pin the user left at
 * our default (it follows the new default) from one the user chose (it stays).
 */
export function imagePins(envText: string | readonly string[]): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const lines of typeof envText === 'string' ? [envText] : chunkLines(envText)) addPins(lines, pins);
  return pins;
}

/** A pin line, whole (no line break inside). */
const PIN_LINE = /^([A-Z][A-Z0-9_]*_IMAGE)=([^\s#'"]+)[ \t]*$/;

/** The line breaks of a JavaScript multiline pattern, where `^` and `$` match. */
const isLineBreak = (c: number) => c === 10 || c === 13 || c === 0x2028 || c === 0x2029;

/**
 * The pins of `text` into `pins`: only the lines holding `_IMAGE=` are tested (found by a string search),
 * each whole; a pattern over the whole file would try every line of a large stack's file.
 */
function addPins(text: string, pins: Record<string, string>): void {
  let at = text.indexOf('_IMAGE=');
  while (at !== -1) {
    let start = at;
    while (start > 0 && !isLineBreak(text.charCodeAt(start - 1))) start--;
    let end = at;
    while (end < text.length && !isLineBreak(text.charCodeAt(end))) end++;
    const m = PIN_LINE.exec(text.slice(start, end));
    if (m) pins[m[1]] = m[2];
    at = text.indexOf('_IMAGE=', end);
  }
}

/** sha256 of a file's content (or of its chunks, text-chunks.ts), as stackwright.json records it. */
export function fileHash(content: string | readonly string[]): string {
  // one call for a whole string: most files are small, and a Hash object costs more than hashing them
  if (typeof content === 'string' && content.length < CHUNK_CHARS) return crypto.hash('sha256', content, 'hex');
  const hash = crypto.createHash('sha256');
  if (typeof content === 'string') hash.update(content);
  else for (const chunk of content) hash.update(chunk);
  return hash.digest('hex');
}

/** What the renderer already knows of a bundle's files, so the record need not read them again. */
export interface KnownFacts {
  /** hashes of some of the files (the same content): a map, or a batch still being hashed (parallel-hash.ts) */
  hashes?: FileHashes;
  /** the chunks of the large files (text-chunks.ts) */
  chunks?: ReadonlyMap<string, readonly string[]>;
  /** the files' paths sorted (the record lists them in that order) */
  names?: readonly string[];
  /** imagePins of .env.example, taken as it was written (bundle-files.ts) */
  images?: Readonly<Record<string, string>>;
}

/**
 * The record of a bundle's files, with what the renderer knows of them (`known`). A bundle bound into a shape
 * gets its record from the shape's (bundle-shape.ts), which is this record with gaps.
 */
export function provenance<R extends object>(request: R, fields: readonly (keyof R)[], catalogueRevision: string, files: ReadonlyMap<string, string>, known: KnownFacts = {}): string {
  const { hashes, chunks, names = [...files.keys()].sort() } = known;
  const sent: Record<string, unknown> = {};
  for (const f of fields) if (request[f] !== undefined) sent[f as string] = request[f];
  const head = JSON.stringify({
    stackwright: { version: STACKWRIGHT_VERSION, catalogueRevision },
    request: sent,
    images: known.images ?? imagePins(chunks?.get(ENV_EXAMPLE_FILE) ?? files.get(ENV_EXAMPLE_FILE) ?? ''),
  }, null, 2);
  // the files' hashes written as JSON.stringify(..., null, 2) writes them: a record of a few hundred keys
  // built and stringified cost more than the lines
  let lines = '';
  for (const file of names) {
    const hash = hashes?.get(file) ?? fileHash(chunks?.get(file) ?? files.get(file)!);
    lines += `${lines ? ',' : ''}\n    ${JSON.stringify(file)}: "${hash}"`;
  }
  // flat now, while its pieces are young: the record outlives the render (the shape cache keeps it), and as a rope of
  // two pieces a file it would be copied piece by piece at each young collection and weigh twice its text there
  return flattened(`${head.slice(0, -2)},\n  "files": ${lines ? `{${lines}\n  }` : '{}'}\n}\n`);
}
