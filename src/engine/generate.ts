// The generator: request → resolution → stack model → files → bundle. One instance per catalogue
// snapshot; it owns the compiled bundle templates and the fragment cache.
import { LRUCache } from 'lru-cache';
import type { Catalogue } from '../catalogue/types.js';
import { ApiError, invalidConfiguration } from '../errors.js';
import { deepFreeze } from '../freeze.js';
import { buildModel } from './build-model.js';
import { BundleTemplates } from './bundle-files.js';
import { buildCompose, COMPOSE_FILE } from './compose.js';
import { FragmentCache } from './fragment-cache.js';
import { PluginFileRenderer } from './plugin-files.js';
import { resolve, type Resolution, type SelectionRequest } from './resolve.js';
import { fileHash, provenance, PROVENANCE_FILE } from './provenance.js';
import { bindableName, bindName, NAME_PLACEHOLDER, placeholderVerbatim } from './name-binding.js';

export interface GenerateRequest extends SelectionRequest {
  name: string;
  domain?: string;
  deploymentType?: 'docker' | 'bare-metal';
  /** default true: cap_drop ALL plus each plugin's capabilities, no-new-privileges */
  hardened?: boolean;
}

export interface Bundle {
  name: string;
  /** relative path → content, keys sorted */
  files: Record<string, string>;
  summary: { services: number; skills: number; proxy: string; estimatedMemoryMB: number };
}

/** Fields of a generate request in a fixed order: equal keys mean byte-identical bundles. */
const REQUEST_FIELDS = ['name', 'preset', 'services', 'skills', 'proxy', 'domain', 'gpu', 'platform', 'primaryFramework', 'companionFrameworks', 'deploymentType', 'hardened'] as const;

export class Generator {
  readonly cache: FragmentCache;
  private readonly bundleTemplates: BundleTemplates;
  private readonly pluginFiles: PluginFileRenderer;
  /**
   * Whole bundles of recent requests. Output is deterministic for a catalogue snapshot, so a repeated
   * request (automation regenerating the same stack) is answered without rendering anything again.
   */
  private readonly bundles: LRUCache<string, Bundle> | undefined;
  /**
   * Bundles rendered with the placeholder name, by the request without its name (name-binding.ts), or
   * null where a template used the name in a way a text replace cannot reproduce.
   */
  private readonly shapes: LRUCache<string, { bundle: Bundle | null; stable: StableFiles }> | undefined;

  constructor(readonly catalogue: Catalogue, templatesDir: string, cacheSize: number, bundleCacheBytes = 16 * 1024 * 1024) {
    this.cache = new FragmentCache(cacheSize);
    this.bundles = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: bundleCacheBytes, sizeCalculation: (b: Bundle) => Math.max(1, bundleSize(b)) })
      : undefined;
    this.shapes = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: bundleCacheBytes, sizeCalculation: (s: { bundle: Bundle | null; stable: StableFiles }) => Math.max(1, s.bundle ? 2 * bundleSize(s.bundle) : 1) })
      : undefined;
    this.bundleTemplates = new BundleTemplates(templatesDir);
    this.pluginFiles = new PluginFileRenderer(this.cache);
  }

  /** The bundle of a request: from the cache for a repeat, else resolved (400 or 409 on problems) and rendered. */
  generate(request: GenerateRequest): Bundle {
    const key = JSON.stringify(REQUEST_FIELDS.map((f) => request[f] ?? null));
    const cached = this.bundles?.get(key);
    if (cached) return cached;
    const shape = this.shapes && bindableName(request.name) ? this.shapeOf(request) : null;
    let bundle: Bundle;
    if (shape) {
      const { bundle: placeheld, stable } = shape;
      const entries = Object.entries(placeheld.files).filter(([file]) => file !== PROVENANCE_FILE)
        .map(([file, content]): [string, string] => (stable.has(file) ? [file, content] : [bindName(file, request.name), bindName(content, request.name)]));
      bundle = this.assemble(request, placeheld.summary, entries, stable);
    } else {
      const resolution = resolve(this.catalogue, request);
      if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
      bundle = this.render(request, resolution);
    }
    this.bundles?.set(key, bundle);
    return bundle;
  }

  /** The bundle of the request's shape rendered with the placeholder name, or null when it cannot be bound. */
  private shapeOf(request: GenerateRequest): { bundle: Bundle; stable: StableFiles } | null {
    const key = JSON.stringify(REQUEST_FIELDS.map((f) => (f === 'name' ? null : request[f] ?? null)));
    let entry = this.shapes!.get(key);
    if (!entry) {
      const resolution = resolve(this.catalogue, request);
      if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
      const rendered = this.render({ ...request, name: NAME_PLACEHOLDER }, resolution);
      const bindable = placeholderVerbatim([...Object.keys(rendered.files), ...Object.values(rendered.files)]);
      // the files no name reaches are the same in every bound bundle: their hash and JSON are made once
      const stable: StableFiles = new Map();
      if (bindable) {
        for (const [file, content] of Object.entries(rendered.files)) {
          if (file !== PROVENANCE_FILE && !file.includes(NAME_PLACEHOLDER) && !content.includes(NAME_PLACEHOLDER)) stable.set(file, { hash: fileHash(content), json: JSON.stringify(content) });
        }
      }
      entry = { bundle: bindable ? rendered : null, stable };
      this.shapes!.set(key, entry);
    }
    return entry.bundle ? { bundle: entry.bundle, stable: entry.stable } : null;
  }

  private render(request: GenerateRequest, resolution: Resolution): Bundle {
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
    const files = new Map<string, string>([[COMPOSE_FILE, buildCompose(model, this.cache)]]);
    for (const [file, content] of this.pluginFiles.render(model)) files.set(file, content);
    for (const [file, content] of this.bundleTemplates.render(model)) files.set(file, content);
    return this.assemble(request, {
      services: resolution.resolvedServices.length,
      skills: resolution.skillPacks.length,
      proxy: resolution.proxy?.id ?? 'none',
      estimatedMemoryMB: resolution.estimatedMemoryMB,
    }, files);
  }

  /** The frozen bundle: the files sorted by path, with the stack record (stackwright.json) of exactly these. */
  private assemble(request: GenerateRequest, summary: Bundle['summary'], entries: Iterable<[string, string]>, stable?: StableFiles): Bundle {
    const files = new Map(entries);
    const known = stable && new Map([...stable].map(([file, s]) => [file, s.hash]));
    files.set(PROVENANCE_FILE, provenance(request, REQUEST_FIELDS, this.catalogue.revision, files, known));
    const bundle = deepFreeze({
      name: request.name,
      files: Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      summary,
    });
    if (stable?.size) encodedFiles.set(bundle, new Map([...stable].map(([file, s]) => [file, s.json])));
    return bundle;
  }
}

/** Files of a request shape that no name reaches: their content's sha256 and JSON text, made once. */
type StableFiles = Map<string, { hash: string; json: string }>;

/** JSON text of some files of a bundle, already encoded (bundleJson uses them). */
const encodedFiles = new WeakMap<Bundle, ReadonlyMap<string, string>>();

/** JSON.stringify(bundle), reusing the JSON of files shared by every bundle of its shape. */
export function bundleJson(bundle: Bundle): string {
  const encoded = encodedFiles.get(bundle);
  if (!encoded) return JSON.stringify(bundle);
  const files = Object.entries(bundle.files).map(([file, content]) => `${JSON.stringify(file)}:${encoded.get(file) ?? JSON.stringify(content)}`);
  return `{"name":${JSON.stringify(bundle.name)},"files":{${files.join(',')}},"summary":${JSON.stringify(bundle.summary)}}`;
}

function bundleSize(bundle: Bundle): number {
  let size = 0;
  for (const [file, content] of Object.entries(bundle.files)) size += file.length + content.length;
  return size;
}
