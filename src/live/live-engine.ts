// The engine the doors (HTTP, MCP, CLI) use: the current catalogue snapshot and its generator, swapped
// whole when the plugin folders change. A request takes `current` once and finishes on it, so a reload
// never mixes two catalogues in one answer; caches live in the generator, so they belong to one revision.
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { watch as watchTree } from 'chokidar';
import { loadCatalogue, type CatalogueDirs, type LoadResult } from '../catalogue/load.js';
import { formatProblem } from '../catalogue/problems.js';
import type { Catalogue } from '../catalogue/types.js';
import { Generator, warmRequests } from '../pipeline/generate.js';
import { processHasher } from '../bundle/parallel-hash.js';
import { compileTemplate } from '../templating.js';

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

/** What each snapshot's generator is made with (Config has them all); `hashThread: false` keeps the record's hashing on the request's thread. */
export interface GeneratorSettings { templatesDir: string; renderCacheSize: number; bundleCacheBytes?: number; renderCacheBytes?: number; hashThread?: boolean }

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
    if (changed) {
      this.snapshot = this.build(result.catalogue);
      this.warm();
    }
    this.emit('reload', reason, this.snapshot, changed, performance.now() - started, result.warnings);
    return { ok: true, result, changed };
  }

  /**
   * Reloads when anything under the folders changes, once the changes have been quiet for debounceMs
   * (an editor saving, a folder copied in). Emits 'watching' once every folder is watched. Returns a
   * function that stops watching.
   *
   * chokidar, not Node's recursive fs.watch: on Linux the latter watches each file's inode, so a file
   * replaced by rename (how editors, sed -i, rsync and git save) is never seen again.
   */
  watch(debounceMs: number): () => void {
    if (!this.dirs) throw new Error('this engine was built without catalogue folders to watch');
    let timer: NodeJS.Timeout | undefined;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(() => this.reload('files changed'), debounceMs);
    };
    const watcher = watchTree([this.dirs.plugins, this.dirs.catalogue], {
      ignoreInitial: true,
      ignored: (file) => isEditorScratch(path.basename(file)),
      // a file the service may not read (another user's temp file, mode 600) is no reason to stop
      // watching; if the catalogue needs it, the reload reports it as file.unreadable
      ignorePermissionErrors: true,
    });
    watcher.on('all', schedule);
    watcher.on('ready', () => this.emit('watching'));
    // a watched folder that disappears is a reload problem, not a crash
    watcher.on('error', (e) => this.emit('watchError', (e as NodeJS.ErrnoException).path ?? this.dirs!.plugins, e));
    return () => {
      clearTimeout(timer);
      void watcher.close();
    };
  }

  /**
   * Warms the live snapshot in the background, a step at a time between requests (setImmediate): every
   * plugin template compiled (templating.ts keeps them for the process; a snapshot read from the start-up
   * cache has compiled none yet), each preset and then each service outside the presets rendered once for its
   * fragments (warmRequests, Generator.warm), so the first new selections after a start or a reload find most
   * compose blocks, YAML scalars and template code ready.
   * Stops when another snapshot goes live; that one is warmed by reload(). Returns when it is scheduled.
   */
  warm(): void {
    const snapshot = this.snapshot;
    const { catalogue, generator } = snapshot;
    // one plugin's templates or one warm request a step: no step holds requests back for long
    const plugins = [...catalogue.frameworks.values(), ...catalogue.services.values(), ...catalogue.proxies.values()];
    const steps: (() => void)[] = [
      ...plugins.map((plugin) => () => { for (const source of plugin.templates.values()) compileTemplateQuietly(source); }),
      ...warmRequests(catalogue).map((request) => () => generator.warm(request)),
    ];
    const next = () => {
      const step = steps.shift();
      if (!step || this.snapshot !== snapshot) {
        this.emit('warmed', snapshot);
        return;
      }
      step();
      setImmediate(next);
    };
    setImmediate(next);
  }

  private build(catalogue: Catalogue): EngineSnapshot {
    const { templatesDir, renderCacheSize, bundleCacheBytes, renderCacheBytes, hashThread } = this.settings;
    const generator = new Generator(catalogue, templatesDir, renderCacheSize, bundleCacheBytes, renderCacheBytes, processHasher(hashThread !== false));
    return Object.freeze({ catalogue, generator, loadedAt: new Date() });
  }
}

/**
 * Files editors keep beside the one being edited, never part of a plugin: vim's swap files (.name.swp,
 * .swo, ... and .swx) and its write test (4913, then 5036, 5159, ...: vim's bufwrite.c steps by 123),
 * backups (name~), Emacs locks (.#name) and auto-saves (#name#), JetBrains' safe-write copies. They come
 * and go while a file is open, so they neither reload the catalogue nor get watched (another user's
 * swap file is mode 600: watching it fails).
 */
function isEditorScratch(name: string): boolean {
  const n = /^\d+$/.test(name) ? Number(name) : NaN;
  return /^\..+\.sw[a-px]$/.test(name) || (n >= 4913 && (n - 4913) % 123 === 0) || name.endsWith('~')
    || name.startsWith('.#') || /^#.*#$/.test(name) || /___jb_(tmp|old)___$/.test(name);
}

/** A template compiled for later; one that does not compile is the loader's to report, not the warm-up's. */
function compileTemplateQuietly(source: string): void {
  try {
    compileTemplate(source);
  } catch {
    // reported where it is used
  }
}
