// The generator: request → resolution → stack model → files → bundle. One instance per catalogue
// snapshot; it owns the compiled bundle templates and the fragment cache.
import { LRUCache } from 'lru-cache';
import type { Catalogue } from '../catalogue/types.js';
import { ApiError, invalidConfiguration } from '../errors.js';
import { buildModel } from '../model/build-model.js';
import { REQUEST_FIELDS, type Bundle, type GenerateRequest } from '../bundle/bundle.js';
import { BundleTemplates } from '../bundle/bundle-files.js';
import { composeChunks, COMPOSE_FILE } from '../emit/compose/compose.js';
import { chunkedBundleJson, keepChunks } from '../bundle/file-chunks.js';
import { joinedChunks } from '../text-chunks.js';
import { DEFAULT_FRAGMENT_CACHE_BYTES, FragmentCache } from '../cache/fragment-cache.js';
import { catalogueFileHashes, PluginFileRenderer } from '../bundle/plugin-files.js';
import { resolve, type Resolution } from '../model/resolve.js';
import { provenance, PROVENANCE_FILE, type KnownFacts } from '../bundle/provenance.js';
import { bindShape, boundAnswer, checkedShape, type BundleShape } from '../cache/bundle-shape.js';
import { lateValues, shapeKey, withPlaceholders } from '../cache/late-binding.js';
import { KubernetesTemplates, kubernetesFiles, SHARED_FILES } from '../emit/kubernetes/index.js';
import { SHARED_FILES as SWARM_SHARED_FILES, SwarmTemplates, swarmFiles } from '../emit/swarm/index.js';
import { checkTarget } from '../emit/targets.js';
import { recordOf } from '../record-of.js';
import { inThreadHasher, type FileHasher, type HashBatch } from '../bundle/parallel-hash.js';

export type { Bundle, GenerateRequest } from '../bundle/bundle.js';
export { boundIntoShape } from '../cache/bundle-shape.js';

/**
 * What the generator knows of a request shape (the request without its late-bound values): after the
 * first request of that shape, the stack record of its bundle and its values (the record, with the
 * sha256 of every file, is what the shape is checked against: the bundle itself is not kept, so a
 * selection asked for once leaves little behind); from the second on, the shape those are bound into,
 * or null where binding cannot reproduce a full render.
 */
type ShapeEntry = { firstRecord: string; values: string[] } | { shape: BundleShape | null };

export class Generator {
  readonly cache: FragmentCache;
  private readonly bundleTemplates: BundleTemplates;
  private readonly pluginFiles: PluginFileRenderer;
  private readonly kubernetesTemplates: KubernetesTemplates;
  private readonly swarmTemplates: SwarmTemplates;
  /**
   * Whole bundles of recent requests. Output is deterministic for a catalogue snapshot, so a repeated
   * request (automation regenerating the same stack) is answered without rendering anything again.
   */
  private readonly bundles: LRUCache<string, Bundle> | undefined;
  /** Request shapes seen (late-binding.ts), by the request without its name and domain. */
  private readonly shapes: LRUCache<string, ShapeEntry> | undefined;

  /** Requests of late-bound bundles asked for once, by their key: a second ask keeps the bundle. */
  private readonly seen: LRUCache<string, true> | undefined;

  /**
   * `cacheSize` entries of fragments in at most `renderCacheBytes`; `bundleCacheBytes` for whole bundles
   * and request shapes together, half each (a bundle counts twice its text: its encoded answer is kept
   * beside it).
   */
  /**
   * `hasher`: where the record's hashes are made; a long-lived service passes one with a second thread
   * (parallel-hash.ts), shared by its generators.
   */
  constructor(
    readonly catalogue: Catalogue, templatesDir: string, cacheSize: number, bundleCacheBytes = 16 * 1024 * 1024,
    renderCacheBytes = DEFAULT_FRAGMENT_CACHE_BYTES, private readonly hasher: FileHasher = inThreadHasher,
  ) {
    this.cache = new FragmentCache(cacheSize, renderCacheBytes);
    const half = Math.max(1, Math.floor(bundleCacheBytes / 2));
    this.bundles = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: half, sizeCalculation: (b: Bundle) => Math.max(1, 2 * bundleSize(b)) })
      : undefined;
    this.shapes = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: half, sizeCalculation: shapeEntrySize })
      : undefined;
    this.seen = this.shapes ? new LRUCache({ maxSize: SEEN_KEYS_BYTES, sizeCalculation: (_: true, key: string) => Math.max(1, key.length) }) : undefined;
    this.bundleTemplates = new BundleTemplates(templatesDir, cacheSize > 0);
    this.kubernetesTemplates = new KubernetesTemplates(templatesDir);
    this.swarmTemplates = new SwarmTemplates(templatesDir);
    this.pluginFiles = new PluginFileRenderer();
  }

  /** The bundle of a request: from the cache for a repeat, else resolved (400 or 409 on problems) and rendered. */
  generate(request: GenerateRequest): Bundle {
    const key = JSON.stringify(REQUEST_FIELDS.map((f) => request[f] ?? null));
    const cached = this.bundles?.get(key);
    if (cached) return cached;
    const values = this.shapes ? lateValues(request) : undefined;
    const bundle = values ? this.bound(request, values) : this.renderRequest(request);
    // most bundles are asked for once (a new name, a new selection each time): kept from their second
    // request on, so one-off bundles die young instead of filling the cache (and the old generation,
    // each promotion a copy into fresh pages) and pushing out bundles that are asked for again. A
    // second ask of a rendered one is bound into its shape (its record was kept) or rendered again.
    if (!this.seen) return bundle;
    if (this.seen.has(key)) this.bundles?.set(key, bundle);
    else this.seen.set(key, true);
    return bundle;
  }

  /**
   * A request whose name and domain can be late-bound. The first of its shape is rendered in full, as
   * any request; the second builds the shape (one render with placeholders) and keeps it only if binding
   * the first request's values into it gives the first request's bundle byte for byte; from then on a
   * request of that shape is its values bound into the shape.
   */
  private bound(request: GenerateRequest, values: string[]): Bundle {
    const key = shapeKey(request);
    let entry = this.shapes!.get(key);
    if (!entry) {
      const bundle = this.renderRequest(request);
      this.shapes!.set(key, { firstRecord: bundle.files[PROVENANCE_FILE], values });
      return bundle;
    }
    if ('firstRecord' in entry) {
      entry = { shape: this.renderShape(request, entry.firstRecord, entry.values) };
      this.shapes!.set(key, entry);
    }
    if (!entry.shape) return this.renderRequest(request);
    return bindShape(entry.shape, request.name, values);
  }

  /**
   * The shape of a request whose full render is `bundle`, to keep outside this generator (the CLI's
   * shape store); null when the request binds no values or binding cannot reproduce `bundle` exactly.
   */
  shapeFor(request: GenerateRequest, bundle: Bundle): BundleShape | null {
    const values = lateValues(request);
    return values ? this.renderShape(request, bundle.files[PROVENANCE_FILE], values) : null;
  }

  /**
   * The shape of a request, or null when its placeholders are not verbatim, its record cannot be taken
   * apart, or binding misses `firstRecord` (the stack record of the request's full render) by a byte.
   */
  private renderShape(request: GenerateRequest, firstRecord: string, firstValues: string[]): BundleShape | null {
    const placeholders = withPlaceholders(request);
    return checkedShape(this.render(placeholders, resolve(this.catalogue, placeholders)), firstRecord, firstValues);
  }

  /**
   * Renders a request for its fragments alone (issue 36: a snapshot warms what a new selection needs): the
   * compose blocks it makes stay in the fragment cache (and its files' hashes in theirs), its bundle is dropped (the bundle
   * and shape caches are left as they were). A request that does not generate warms nothing and says
   * nothing: whether it generates is for a real request to find out.
   */
  warm(request: GenerateRequest): void {
    if (!this.cache.enabled) return;
    try {
      // hashed on this thread: the bundle is dropped, and a warm start should not start the hashing thread
      this.renderRequest(request, inThreadHasher);
    } catch {
      // a refused or failing request warms what it rendered before it stopped
    }
  }

  /** A request rendered in full: resolved (400 or 409 on problems), modelled, every file rendered. */
  private renderRequest(request: GenerateRequest, hasher = this.hasher): Bundle {
    const resolution = resolve(this.catalogue, request);
    if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
    checkTarget(resolution, request.deploymentType, request.gpu ?? false);
    return this.render(request, resolution, hasher);
  }

  private render(request: GenerateRequest, resolution: Resolution, hasher = this.hasher): Bundle {
    if (resolution.conflicts.length) {
      throw new ApiError('CONFLICT', `the selected services conflict: ${resolution.conflicts.map(([a, b]) => `${a} and ${b}`).join('; ')}; keep one of each pair`, {
        details: { conflicts: resolution.conflicts.map(([a, b]) => ({ services: [a, b] })) },
      });
    }
    const model = buildModel(resolution, {
      name: request.name,
      domain: request.domain,
      gpu: request.gpu ?? false,
      platform: request.platform,
      deployment: request.deploymentType ?? 'docker',
      hardened: request.hardened ?? true,
    });
    const summary = {
      services: resolution.resolvedServices.length,
      skills: resolution.skillPacks.length,
      proxy: resolution.proxy?.id ?? 'none',
      estimatedMemoryMB: resolution.estimatedMemoryMB,
      memoryLimitMB: resolution.memoryLimitMB,
    };
    const pluginFiles = this.pluginFiles.render(model);
    // the files that grow with the stack, as chunks (text-chunks.ts)
    const chunks = new Map<string, readonly string[]>();
    const hashes = hasher.batch();
    // the skills are the catalogue's strings, the same file in every stack that ships them, on every target:
    // their sha256 is kept by the skill (where a target writes the file as it is)
    const skills = catalogueFileHashes(model);
    // each file's hash is started as soon as the file is final, on the hasher's second thread where it has one
    const queue = (files: ReadonlyMap<string, string>) => queueHashes(hashes, files, chunks, skills);
    // on every target: one that writes a plugin file otherwise has it queued again with its own text at the end
    queue(pluginFiles);
    // the one place a deployment target picks its emitter; Compose (docker, bare-metal) follows
    let files: Map<string, string>;
    // .env.example's image pins, where the bundle templates write it as the bundle ships it (Compose)
    let images: Record<string, string> | undefined;
    if (model.options.deployment === 'kubernetes') {
      const shared = this.bundleTemplates.render(model, SHARED_FILES);
      queue(shared);
      files = kubernetesFiles(model, pluginFiles, shared, this.kubernetesTemplates, this.cache);
    } else if (model.options.deployment === 'swarm') {
      const shared = this.bundleTemplates.render(model, SWARM_SHARED_FILES);
      queue(shared);
      files = swarmFiles(model, pluginFiles, shared, this.swarmTemplates);
    } else {
      const compose = composeChunks(model, this.cache);
      if (compose.length > 1) chunks.set(COMPOSE_FILE, compose);
      // the plugin files' map is this render's own: the bundle's files are sorted by path when it is assembled
      files = pluginFiles;
      files.set(COMPOSE_FILE, joinedChunks(compose));
      hashes.submit(COMPOSE_FILE, compose);
      hashes.start();
      images = {};
      // each file to the hasher as it is done: the second thread hashes README.md while .env.example is written
      const submit = (file: string, content: string | readonly string[]) => {
        hashes.submit(file, content);
        hashes.start();
      };
      this.bundleTemplates.render(model, undefined, chunks, images, submit).forEach((content, file) => files.set(file, content));
    }
    queue(files);
    return this.assemble(request, summary, files, { hashes, chunks, images });
  }

  /** The frozen bundle: the files sorted by path, with the stack record (stackwright.json) of exactly these. */
  private assemble(request: GenerateRequest, summary: Bundle['summary'], files: Map<string, string>, known: KnownFacts = {}): Bundle {
    // sorted once, for the record and the bundle (the default sort orders by UTF-16 code units, as `<` does)
    const names = [...files.keys()].sort();
    files.set(PROVENANCE_FILE, provenance(request, REQUEST_FIELDS, this.catalogue.revision, files, { ...known, names }));
    const { chunks } = known;
    let at = 0;
    while (at < names.length && names[at] < PROVENANCE_FILE) at++;
    if (names[at] !== PROVENANCE_FILE) names.splice(at, 0, PROVENANCE_FILE);
    // frozen a level at a time: its values are strings and numbers, which deepFreeze would walk one by one
    const bundle: Bundle = Object.freeze({
      name: request.name,
      files: Object.freeze(recordOf(names.map((name) => [name, files.get(name)!] as const))),
      summary: Object.freeze(summary),
    });
    if (chunks) keepChunks(bundle, chunks);
    return bundle;
  }
}

/**
 * The requests a catalogue snapshot is warmed with (Generator.warm, LiveEngine.warm): each preset, then each service no
 * preset holds, alone. A selection that first meets a service has its compose block dumped and every YAML scalar of
 * it asked of js-yaml once (emit/yaml-dump.ts keeps those texts for the process): ~1 ms of a full-stack request
 * (docs/architecture.md), paid here in the background instead of by a person's first Generate with that service.
 */
export function warmRequests(catalogue: Catalogue): GenerateRequest[] {
  const inPresets = new Set<string>();
  for (const preset of catalogue.presets.values()) for (const id of preset.manifest.services) inPresets.add(id);
  return [
    ...[...catalogue.presets.keys()].map((preset) => ({ name: 'warm', preset })),
    ...[...catalogue.services.keys()].filter((id) => !inPresets.has(id)).map((id) => ({ name: 'warm', services: [id] })),
  ];
}

/** Room for the keys of requests asked for once (a key is ~150 characters: some 7,000 of them). */
const SEEN_KEYS_BYTES = 1024 * 1024;

/** JSON.stringify(bundle) as UTF-8 chunks; a bound bundle's is copied from its shape's encoded pieces. */
export function bundleJsonChunks(bundle: Bundle): Buffer[] {
  return boundAnswer(bundle) ?? chunkedBundleJson(bundle) ?? [Buffer.from(JSON.stringify(bundle))];
}

/** JSON.stringify(bundle), as the API sends it. */
export function bundleJson(bundle: Bundle): string {
  return Buffer.concat(bundleJsonChunks(bundle)).toString();
}

function shapeEntrySize(entry: ShapeEntry): number {
  // a shape keeps its bundle, the UTF-8 and the JSON of its pieces: about three times the text
  if ('firstRecord' in entry) return Math.max(1, entry.firstRecord.length);
  return Math.max(1, entry.shape ? 3 * bundleSize(entry.shape.bundle) : 1);
}

function bundleSize(bundle: Bundle): number {
  let size = 0;
  for (const [file, content] of Object.entries(bundle.files)) size += file.length + content.length;
  return size;
}

/**
 * Each file of `files` into `hashes`: a skill written as the catalogue has it by its kept hash, any other file
 * queued (as its chunks where it has them). A file queued or known before is left as it is.
 */
function queueHashes(hashes: HashBatch, files: ReadonlyMap<string, string>, chunks: ReadonlyMap<string, readonly string[]>, skills: ReadonlyMap<string, readonly [string, string]>): void {
  files.forEach((content, file) => {
    const skill = skills.get(file);
    if (skill !== undefined && skill[0] === content) hashes.known(file, skill[1]);
    else hashes.submit(file, chunks.get(file) ?? content);
  });
  hashes.start();
}
