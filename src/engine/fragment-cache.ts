// LRU of rendered fragments (compose entries, config files). A key is the fragment kind, the plugin's
// content hash and every other input that shapes it, so a changed plugin or option can never be served
// a stale fragment.
import { LRUCache } from 'lru-cache';

export class FragmentCache {
  private readonly lru: LRUCache<string, { value: unknown }> | undefined;
  hits = 0;
  misses = 0;

  constructor(size: number) {
    this.lru = size > 0 ? new LRUCache({ max: size }) : undefined;
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
}
