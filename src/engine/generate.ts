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
import { provenance, PROVENANCE_FILE } from './provenance.js';
import { BundleShape } from './bundle-shape.js';
import { bindableName, NAME_PLACEHOLDER, placeholderVerbatim } from './name-binding.js';

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
  summary: { services: number; skills: number; proxy: string; estimatedMemoryMB: number; memoryLimitMB: number };
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
  private readonly shapes: LRUCache<string, { shape: BundleShape | null }> | undefined;

  constructor(readonly catalogue: Catalogue, templatesDir: string, cacheSize: number, bundleCacheBytes = 16 * 1024 * 1024) {
    this.cache = new FragmentCache(cacheSize);
    this.bundles = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: bundleCacheBytes, sizeCalculation: (b: Bundle) => Math.max(1, bundleSize(b)) })
      : undefined;
    this.shapes = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: bundleCacheBytes, sizeCalculation: (s: { shape: BundleShape | null }) => Math.max(1, s.shape ? 3 * bundleSize(s.shape.bundle) : 1) })
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
      const bound = shape.bind(request.name);
      bundle = this.assemble(request, shape.bundle.summary, bound.entries, bound.hashes);
      encodedFiles.set(bundle, bound.json);
    } else {
      const resolution = resolve(this.catalogue, request);
      if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
      bundle = this.render(request, resolution);
    }
    this.bundles?.set(key, bundle);
    return bundle;
  }

  /** The request's shape rendered with the placeholder name, or null when a name cannot be bound into it. */
  private shapeOf(request: GenerateRequest): BundleShape | null {
    const key = JSON.stringify(REQUEST_FIELDS.map((f) => (f === 'name' ? null : request[f] ?? null)));
    let entry = this.shapes!.get(key);
    if (!entry) {
      const resolution = resolve(this.catalogue, request);
      if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
      const rendered = this.render({ ...request, name: NAME_PLACEHOLDER }, resolution);
      // file paths never hold the name; a template that put it in one (or transformed it) is rendered per name
      const bindable = !Object.keys(rendered.files).some((f) => f.includes(NAME_PLACEHOLDER))
        && placeholderVerbatim([...Object.keys(rendered.files), ...Object.values(rendered.files)]);
      entry = { shape: bindable ? new BundleShape(rendered) : null };
      this.shapes!.set(key, entry);
    }
    return entry.shape;
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
      memoryLimitMB: resolution.memoryLimitMB,
    }, files);
  }

  /** The frozen bundle: the files sorted by path, with the stack record (stackwright.json) of exactly these. */
  private assemble(request: GenerateRequest, summary: Bundle['summary'], entries: Iterable<[string, string]>, known?: ReadonlyMap<string, string>): Bundle {
    const files = new Map(entries);
    files.set(PROVENANCE_FILE, provenance(request, REQUEST_FIELDS, this.catalogue.revision, files, known));
    const bundle = deepFreeze({
      name: request.name,
      files: Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      summary,
    });
    return bundle;
  }
}

/** The JSON of a bound bundle's files, as buffers made from its shape (bundleJsonChunks uses them). */
const encodedFiles = new WeakMap<Bundle, ReadonlyMap<string, Buffer[]>>();

/** JSON.stringify(bundle) as UTF-8 chunks; the files of a bound bundle come from their shape's buffers. */
export function bundleJsonChunks(bundle: Bundle): Buffer[] {
  const encoded = encodedFiles.get(bundle);
  if (!encoded) return [Buffer.from(JSON.stringify(bundle))];
  const out: Buffer[] = [];
  let text = `{"name":${JSON.stringify(bundle.name)},"files":{`;
  let first = true;
  for (const [file, content] of Object.entries(bundle.files)) {
    text += `${first ? '' : ','}${JSON.stringify(file)}:`;
    first = false;
    const chunks = encoded.get(file);
    if (chunks) {
      out.push(Buffer.from(text), ...chunks);
      text = '';
    } else {
      text += JSON.stringify(content);
    }
  }
  out.push(Buffer.from(`${text}},"summary":${JSON.stringify(bundle.summary)}}`));
  return out;
}

/** JSON.stringify(bundle), as the API sends it. */
export function bundleJson(bundle: Bundle): string {
  return Buffer.concat(bundleJsonChunks(bundle)).toString();
}

function bundleSize(bundle: Bundle): number {
  let size = 0;
  for (const [file, content] of Object.entries(bundle.files)) size += file.length + content.length;
  return size;
}
