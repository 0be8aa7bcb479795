// Why catalogue strings are copied once at load: js-yaml cuts each string out of the file's text, and V8
// keeps such a cut in the text's representation. A manifest holding one character past Latin-1 (an em dash
// in a description) is read as two-byte text, so every string of it is two-byte too, and so is every file
// of a stack that contains one of them (docker-compose.yml, .env.example, the README). Two-byte text takes
// twice the memory and is hashed, copied and encoded at about half the speed (sha256 of a 32K two-byte
// string 75 µs against 34 µs). A copy made from Latin-1 bytes is one-byte whatever its source.

/** Whether `text` holds a character past Latin-1 (one its strings cannot be one-byte without). */
export function hasWideCharacters(text: string): boolean {
  return /[^\x00-\xff]/.test(text);
}

/**
 * A parsed document with every string of Latin-1 text (values and array items, at any depth) replaced by
 * a one-byte copy, in place; returns it. Strings with wider characters stay as they are. Keys need no
 * copy: V8 keeps property names in its string table, one-byte where their text allows.
 */
export function withOneByteStrings<T>(value: T): T {
  return narrow(value) as T;
}

function narrow(value: unknown): unknown {
  if (typeof value === 'string') return hasWideCharacters(value) ? value : Buffer.from(value, 'latin1').toString('latin1');
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = narrow(value[i]);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) record[key] = narrow(record[key]);
  }
  return value;
}
