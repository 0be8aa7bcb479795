// Large generated files (docker-compose.yml, README.md, .env.example of a big stack) kept as a list of
// chunks from the moment they are built until they are hashed, sent or archived. Why: V8 puts a string
// over 128 KB in its large-object space, a fresh mapping each time, and flattening a concatenated
// document into one costs a page fault per 4 KB (about 25 µs each on a virtual machine, 10 times the
// copy); a chunk stays below that size even as two-byte text, so its flat copy is a cheap young one.
// The file's string is the chunks concatenated (a rope; nothing is copied until something reads it).

/** At most this many characters a chunk before another is started: 64 KB as two-byte text. */
export const CHUNK_CHARS = 32 * 1024;

/** Appends text and cuts it into chunks as it grows. */
export class TextChunks {
  private readonly done: string[] = [];
  private open = '';

  add(text: string): void {
    this.open += text;
    if (this.open.length >= CHUNK_CHARS) {
      this.done.push(flattened(this.open));
      this.open = '';
    }
  }

  /** The chunks, the last one included (at least one, maybe empty). */
  finish(): string[] {
    this.done.push(this.open);
    this.open = '';
    return settledChunks(this.done);
  }
}

/**
 * `text` made one flat string now (reading a character of a concatenation flattens it in place), while its
 * pieces are young: left as a rope of thousands of small strings, it would be copied piece by piece at
 * every young-generation collection until something read it.
 */
export function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * The chunks with no surrogate pair cut in two (a chunk ending in a pair's first half is joined with the
 * next), so each chunk encodes (UTF-8, JSON) exactly as its part of the whole does. Empty chunks go,
 * but one is always left.
 */
export function settledChunks(chunks: string[]): string[] {
  const out: string[] = [];
  let carry = '';
  for (const chunk of chunks) {
    const text = carry + chunk;
    const last = text.length ? text.charCodeAt(text.length - 1) : 0;
    if (last >= 0xd800 && last <= 0xdbff) {
      carry = text;
      continue;
    }
    carry = '';
    if (text.length) out.push(text);
  }
  if (carry.length) out.push(carry);
  if (!out.length) out.push('');
  return out;
}

/** The whole text of chunks (concatenated, not copied). */
export function joinedChunks(chunks: readonly string[]): string {
  let text = '';
  for (const chunk of chunks) text += chunk;
  return text;
}

/**
 * The complete lines of chunks, one string per chunk's run of lines (a line cut between two chunks is
 * given whole, in the later run): for line-by-line scans of a chunked file.
 */
export function* chunkLines(chunks: readonly string[]): Generator<string> {
  let carry = '';
  for (const chunk of chunks) {
    const text = carry + chunk;
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      carry = text;
      continue;
    }
    yield text.slice(0, end + 1);
    carry = text.slice(end + 1);
  }
  if (carry.length) yield carry;
}
