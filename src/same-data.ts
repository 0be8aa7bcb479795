// Structural equality of plain data, for memos that keep the last value built from an input and compare
// the next input with it instead of building its key (cache/fragment-cache.ts getByInput, compose.ts).

/**
 * Whether two values of plain data (strings, numbers, booleans, null, undefined, arrays and plain objects
 * of those) are the same: the same keys in the same order, the same values. Such values have the same
 * JSON; the reverse need not hold (undefined and a missing key), so a miss here costs a lookup, never a
 * wrong answer.
 */
export function sameData(a: unknown, b: unknown): boolean {
  // Object.is: 0 and -0 are dumped differently
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameData(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    if (keys[i] !== other[i] || !sameData((a as Record<string, unknown>)[keys[i]], (b as Record<string, unknown>)[keys[i]])) return false;
  }
  return true;
}

/**
 * sameData over the fields `keys` of two objects of one type (each field compared with sameData): for a type
 * whose fields are listed once beside it, without listing the objects' keys for every comparison.
 */
export function sameFields<T extends object>(a: T, b: T, keys: readonly (keyof T)[]): boolean {
  if (a === b) return true;
  for (let i = 0; i < keys.length; i++) if (!sameData(a[keys[i]], b[keys[i]])) return false;
  return true;
}
