// The request shapes `stackwright generate` keeps between runs (cache/shape-store.ts), beside the
// catalogue snapshot: a stack of a shape generated before (the same request but for its name and domain)
// is its values bound into the stored shape, with no catalogue parsed and nothing rendered. This module
// loads none of the loader or the renderer, so such a run never imports them; a miss goes through
// engine.ts (imported then).
import type { Config } from '../config.js';
import { checkInputs, trustedCatalogueKey, type InputsCheck } from '../catalogue/snapshot-stamp.js';
import { bindShape, shapeOf } from '../cache/bundle-shape.js';
import type { Bundle, GenerateRequest } from '../bundle/bundle.js';
import type { Generator } from '../pipeline/generate.js';
import { lateValues, shapeKey } from '../cache/late-binding.js';
import { ShapeStore } from '../cache/shape-store.js';
import type { Warning } from '../errors.js';
import { STACKWRIGHT_VERSION } from '../version.js';
import { catalogueDirs } from './settings.js';

/**
 * The request shapes a CLI run keeps on disk (cache/shape-store.ts), beside the catalogue snapshot: a
 * stack of a shape generated before (the same request but for its name and domain) is its values bound
 * into the stored shape, with no catalogue parsed and nothing rendered. Off with the snapshot
 * (STACK_CATALOGUE_CACHE=''), and unused while the inputs changed since the snapshot was verified.
 */
export class CliShapes {
  /** the inputs' check against the snapshot, for the load that follows a miss */
  readonly check: InputsCheck | undefined;
  private readonly found: ShapeStore | undefined;
  /** by catalogue key: a store's key reads the bundle templates, so it is worked out once a run */
  private readonly stores = new Map<string, ShapeStore>();

  constructor(private readonly config: Config) {
    this.check = config.catalogueCacheFile ? checkInputs(catalogueDirs(config), config.catalogueCacheFile) : undefined;
    const key = this.check && trustedCatalogueKey(this.check);
    this.found = key ? this.storeFor(key) : undefined;
  }

  /** The bundle of a schema-valid request from its stored shape, and the resolver's warnings; undefined when there is none. */
  bundleOf(request: GenerateRequest): { bundle: Bundle; warnings: Warning[] } | undefined {
    const values = this.found && lateValues(request);
    const stored = values && this.found!.get(shapeKey(request));
    if (!stored) return undefined;
    // checked against a full render before it was stored (checkedShape)
    const shape = shapeOf(stored.bundle);
    if (!shape) return undefined;
    return { bundle: bindShape(shape, request.name, values), warnings: stored.warnings };
  }

  /** Keeps the shape of a request just rendered in full (`bundle`), when it has one that binds exactly. */
  keep(generator: Generator, catalogueKey: string | undefined, request: GenerateRequest, bundle: Bundle, warnings: Warning[]): void {
    if (!catalogueKey) return;
    // null too for a request that binds no values
    const shape = generator.shapeFor(request, bundle);
    if (shape) this.storeFor(catalogueKey).put(shapeKey(request), { bundle: shape.bundle, warnings });
  }

  private storeFor(catalogueKey: string): ShapeStore {
    let store = this.stores.get(catalogueKey);
    if (!store) {
      store = new ShapeStore(`${this.config.catalogueCacheFile}.shapes`, ShapeStore.inputsKey(catalogueKey, this.config.templatesDir, STACKWRIGHT_VERSION));
      this.stores.set(catalogueKey, store);
    }
    return store;
  }
}
