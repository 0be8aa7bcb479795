// LRU of rendered fragments (compose entries, config files). A key is the fragment kind, the plugin's
// content hash and every other input that shapes it, so a changed plugin or option can never be served
// a stale fragment. Bounded by entries and by bytes: a key holds the fragment's inputs as JSON and can
// outweigh the fragment, and a 200-service stack's fragments are several times a small one's.
import { LRUCache } from 'lru-cache';
import { sameData } from '../same-data.js';

export class FragmentCache {
  private readonly lru: LRUCache<string, { value: unknown }> | undefined;
  /**
   * Each plugin's last input and value of each kind (getByInput): a new selection changes few services'
   * inputs, and comparing an input with the last one costs a fraction of its JSON key and the LRU lookup.
   * One value a plugin and kind, dropped with the plugin (a hot reload's plugins are new objects) or this cache.
   */
  private readonly last = new Map<string, WeakMap<object, { input: unknown; value: unknown }>>();
  hits = 0;
  misses = 0;

  /** `size` entries, at most `maxBytes` of keys and values (their text's length); either 0 turns it off */
  constructor(size: number, maxBytes = DEFAULT_FRAGMENT_CACHE_BYTES) {
    this.lru = size > 0 && maxBytes > 0
      ? new LRUCache({ max: size, maxSize: maxBytes, sizeCalculation: (entry, key) => Math.max(1, key.length + textSize(entry.value)) })
      : undefined;
  }

  /** false with a size of 0: every get builds */
  get enabled(): boolean {
    return this.lru !== undefined;
  }

  /** `inputKey` is a string that changes whenever any input other than the plugin does. */
  get<T>(kind: string, pluginHash: string, inputKey: string, build: () => T): T {
    if (!this.lru) return build();
    const key = `${kind}\0${pluginHash}\0${inputKey}`;
    const found = this.lru.get(key);
    if (found) {
      this.hits++;
      return found.value as T;
    }
    this.misses++;
    const value = build();
    this.lru.set(key, { value });
    return value;
  }

  /**
   * get(kind, plugin.hash, JSON.stringify(input), build), answered from the plugin's last input of this
   * kind when `input` is the same data (`same`: sameData, or a comparison of its type's fields). `input` must
   * be plain data (what its JSON names exactly) that, with the plugin, decides the value.
   */
  getByInput<I, T>(kind: string, plugin: { readonly hash: string }, input: I, build: () => T, same: (kept: I, input: I) => boolean = sameData): T {
    if (!this.lru) return build();
    let last = this.last.get(kind);
    if (!last) this.last.set(kind, (last = new WeakMap()));
    const kept = last.get(plugin);
    if (kept && same(kept.input as I, input)) {
      this.hits++;
      return kept.value as T;
    }
    const value = this.get(kind, plugin.hash, JSON.stringify(input), build);
    last.set(plugin, { input, value });
    return value;
  }
}

export const DEFAULT_FRAGMENT_CACHE_BYTES = 8 * 1024 * 1024;

/** The length of the text a fragment holds (strings, in arrays and objects), about its bytes. */
function textSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + textSize(v), 16);
  if (value && typeof value === 'object') return Object.entries(value).reduce((n, [k, v]) => n + k.length + textSize(v), 16);
  return 8;
}
