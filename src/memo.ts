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
 * The frozen item last kept for an owner's slot: the caller gives it back while the facts it was made from
 * are the same (compared where it is used, field by field), else makes one and keeps it in its place. One
 * object per fact across stacks, so what is written of it can be kept by it (bundle-files.ts, fragments);
 * one item a slot, so a request with new facts (another domain) replaces it instead of adding to what is kept.
 */
export class KeptSlots<O extends object, T extends object> {
  private readonly kept = new WeakMap<O, Map<string | number, Readonly<T>>>();

  get(owner: O, slot: string | number): Readonly<T> | undefined {
    return this.kept.get(owner)?.get(slot);
  }

  keep(owner: O, slot: string | number, item: T): Readonly<T> {
    let slots = this.kept.get(owner);
    if (!slots) this.kept.set(owner, (slots = new Map()));
    const frozen = Object.freeze(item);
    slots.set(slot, frozen);
    return frozen;
  }
}
