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

  constructor(readonly catalogue: Catalogue, templatesDir: string, cacheSize: number, bundleCacheBytes = 16 * 1024 * 1024) {
    this.cache = new FragmentCache(cacheSize);
    this.bundles = cacheSize > 0 && bundleCacheBytes > 0
      ? new LRUCache({ maxSize: bundleCacheBytes, sizeCalculation: (b: Bundle) => Math.max(1, bundleSize(b)) })
      : undefined;
    this.bundleTemplates = new BundleTemplates(templatesDir);
    this.pluginFiles = new PluginFileRenderer(this.cache);
  }

  /** The bundle of a request: from the cache for a repeat, else resolved (400 or 409 on problems) and rendered. */
  generate(request: GenerateRequest): Bundle {
    const key = JSON.stringify(REQUEST_FIELDS.map((f) => request[f] ?? null));
    const cached = this.bundles?.get(key);
    if (cached) return cached;
    const resolution = resolve(this.catalogue, request);
    if (resolution.errors.length) throw invalidConfiguration(resolution.errors);
    const bundle = this.render(request, resolution);
    this.bundles?.set(key, bundle);
    return bundle;
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
    files.set(PROVENANCE_FILE, provenance(request, REQUEST_FIELDS, this.catalogue.revision, files));
    return deepFreeze({
      name: request.name,
      files: Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
      summary: {
        services: resolution.resolvedServices.length,
        skills: resolution.skillPacks.length,
        proxy: resolution.proxy?.id ?? 'none',
        estimatedMemoryMB: resolution.estimatedMemoryMB,
      },
    });
  }
}

function bundleSize(bundle: Bundle): number {
  let size = 0;
  for (const [file, content] of Object.entries(bundle.files)) size += file.length + content.length;
  return size;
}
