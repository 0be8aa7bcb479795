// Values computed once per key, for facts that are a function of the key alone: a plugin's (its manifest
// and id, never another plugin or a stack's choices: docs/architecture.md, caches) or a string's. The same
// object comes back each time, so later lookups by it (the YAML dumper's, a template's) are cheap.

/** `compute` once per object, kept as long as the object lives (a hot reload's plugins are new objects). */
export function perObject<K extends object, T>(compute: (key: K) => T): (key: K) => T {
  const values = new WeakMap<K, T>();
  return (key) => {
    if (values.has(key)) return values.get(key)!;
    const value = compute(key);
    values.set(key, value);
    return value;
  };
}

/** `compute` once per string; the map starts again past `limit` strings (keys are catalogue text, not a request's). */
export function perString<T>(limit: number, compute: (text: string) => T): (text: string) => T {
  const values = new Map<string, T>();
  return (text) => {
    let value = values.get(text);
    if (value === undefined && !values.has(text)) {
      if (values.size >= limit) values.clear();
      values.set(text, (value = compute(text)));
    }
    return value as T;
  };
}

/**
 * The frozen item last made for an owner's slot, given back while the facts it was made from are the same
 * (each compared with ===), else made again and kept in its place: one object per fact across stacks, so
 * what is written of it can be kept by it (bundle-files.ts, fragments). One item a slot: a request with
 * new facts (another domain) replaces it instead of adding to what is kept.
 */
export function keptItems<O extends object, T extends object>(): (owner: O, slot: string | number, facts: readonly unknown[], make: () => T) => Readonly<T> {
  const kept = new WeakMap<O, Map<string | number, { facts: readonly unknown[]; item: Readonly<T> }>>();
  return (owner, slot, facts, make) => {
    let slots = kept.get(owner);
    if (!slots) kept.set(owner, (slots = new Map()));
    const last = slots.get(slot);
    if (last && last.facts.length === facts.length && last.facts.every((fact, i) => fact === facts[i])) return last.item;
    const item = Object.freeze(make());
    slots.set(slot, { facts, item });
    return item;
  };
}
