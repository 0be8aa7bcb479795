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
