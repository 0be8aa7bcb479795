// Objects with many keys that differ from stack to stack (a bundle's files, the framework's depends_on,
// the public URLs by id). Object.fromEntries gives such an object fast properties: a hidden class per key,
// shared only by objects whose keys came in the same order. A new selection's keys never did, so each key
// made a new class, about 2.5 µs each (200 keys, 0.5 ms). Stored one by one under computed names, the
// object becomes a dictionary after a dozen keys, and a key costs a hash insert.

/** A plain object of the entries, in their order (a later duplicate key wins, as with Object.fromEntries). */
export function recordOf<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const record: Record<string, V> = {};
  for (const [key, value] of entries) {
    // an assignment to __proto__ would set the prototype: that key is defined as an own property, as fromEntries does
    if (key === '__proto__') Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
    else record[key] = value;
  }
  return record;
}
