// The engine the doors (HTTP, MCP, CLI) use: the current catalogue snapshot and its generator, swapped
// whole when the plugin folders change. A request takes `current` once and finishes on it, so a reload
// never mixes two catalogues in one answer; caches live in the generator, so they belong to one revision.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadCatalogue, type CatalogueDirs, type LoadResult } from '../catalogue/load.js';
import { formatProblem } from '../catalogue/problems.js';
import type { Catalogue } from '../catalogue/types.js';
import { Generator } from './generate.js';

export interface EngineSnapshot {
  readonly catalogue: Catalogue;
  readonly generator: Generator;
  /** when this snapshot went live */
  readonly loadedAt: Date;
}

export interface ReloadFailure {
  at: Date;
  /** the first problems, formatted as `file  /pointer  rule  message` */
  problems: string[];
  count: number;
}

export interface GeneratorSettings { templatesDir: string; renderCacheSize: number; bundleCacheBytes?: number }

export class LiveEngine extends EventEmitter {
  private snapshot: EngineSnapshot;
  private failure: ReloadFailure | null = null;

  constructor(catalogue: Catalogue, private readonly settings: GeneratorSettings, private readonly dirs?: CatalogueDirs) {
    super();
    this.snapshot = this.build(catalogue);
  }

  get current(): EngineSnapshot {
    return this.snapshot;
  }

  /** The last reload that failed since the last one that succeeded, or null. */
  get lastReloadError(): ReloadFailure | null {
    return this.failure;
  }

  /**
   * Loads the folders again. A clean catalogue replaces the live one (emits 'reload'); one with errors
   * is refused, the live one keeps serving, and every problem is logged (emits 'reloadFailed').
   */
  reload(reason: string): { ok: boolean; result: LoadResult; changed: boolean } {
    if (!this.dirs) throw new Error('this engine was built without catalogue folders to reload from');
    const started = performance.now();
    const result = loadCatalogue(this.dirs);
    if (!result.catalogue) {
      this.failure = { at: new Date(), problems: result.errors.slice(0, 20).map(formatProblem), count: result.errors.length };
      this.emit('reloadFailed', reason, result.errors);
      return { ok: false, result, changed: false };
    }
    this.failure = null;
    const changed = result.catalogue.revision !== this.snapshot.catalogue.revision;
    if (changed) this.snapshot = this.build(result.catalogue);
    this.emit('reload', reason, this.snapshot, changed, performance.now() - started, result.warnings);
    return { ok: true, result, changed };
  }

  /**
   * Reloads when anything under the folders changes, once the changes have been quiet for debounceMs
   * (an editor saving, a folder copied in). Returns a function that stops watching.
   */
  watch(debounceMs: number): () => void {
    if (!this.dirs) throw new Error('this engine was built without catalogue folders to watch');
    let timer: NodeJS.Timeout | undefined;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.reload('files changed'), debounceMs);
    };
    const watchers = [this.dirs.plugins, this.dirs.catalogue].map((dir) => {
      const w = fs.watch(dir, { recursive: true }, schedule);
      // a watched folder that disappears is a reload problem, not a crash
      w.on('error', (e) => this.emit('watchError', dir, e));
      return w;
    });
    return () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
    };
  }

  private build(catalogue: Catalogue): EngineSnapshot {
    const { templatesDir, renderCacheSize, bundleCacheBytes } = this.settings;
    return Object.freeze({ catalogue, generator: new Generator(catalogue, templatesDir, renderCacheSize, bundleCacheBytes), loadedAt: new Date() });
  }
}

