// The engine as the CLI uses it: the catalogue the service would load (same settings, same loader, the
// same start-up snapshot), and the API's own generate function, so the CLI writes the bytes the API would
// send. A stack whose shape the CLI kept (shapes.ts) needs none of this module.
import type { Config } from '../config.js';
import { CatalogueLoadError } from '../catalogue/load.js';
import { loadCatalogueWithCache, type InputsCheck } from '../catalogue/snapshot-cache.js';
import type { Catalogue } from '../catalogue/types.js';
import { Generator, type Bundle } from '../pipeline/generate.js';
import { ApiError } from '../errors.js';
import { WorkQueue } from '../usecases/work-queue.js';
import { generateStack } from '../usecases/generate.js';
import { CliFailure, UsageError } from './output.js';
import { catalogueDirs, cliConfig } from './settings.js';

export { resolve } from '../model/resolve.js';

/**
 * The settings and the catalogue the service would load, or a CliFailure saying what is wrong; `key` is
 * the catalogue's content key when the start-up snapshot is on. `check` is the inputs' check when taken already.
 */
export function loadCliCatalogue(config: Config = cliConfig(), check?: InputsCheck): { config: Config; catalogue: Catalogue; key?: string } {
  // the server's start-up snapshot, used only while its key (a hash of every plugin and catalogue file)
  // matches the files on disk: a changed plugin loads in full and rewrites it
  const loaded = loadCatalogueWithCache(catalogueDirs(config), config.catalogueCacheFile, check);
  if (!loaded.catalogue) throw new CliFailure(`${new CatalogueLoadError(loaded.errors).message}\n(the catalogue in ${config.pluginsDir}; stackwright lint lists the same)`);
  return { config, catalogue: loaded.catalogue, key: loaded.key };
}

export function loadGenerator(config: Config = cliConfig(), check?: InputsCheck): { config: Config; generator: Generator; catalogueKey?: string } {
  const { catalogue, key } = loadCliCatalogue(config, check);
  return { config, generator: new Generator(catalogue, config.templatesDir, 0, 0), catalogueKey: key };
}

export interface RefusalOptions {
  /** a refused value is a wrong command line (exit 2), not a failed command (exit 1) */
  valuesAreArguments?: boolean;
  /** rewrites a problem sentence in the user's terms (flags rather than API fields) */
  describe?: (line: string) => string;
}

/** The bundle (and its tar when format is tar) of a request body, or an error listing what to fix. */
export async function generateBundle(generator: Generator, body: unknown, refusal: RefusalOptions = {}): Promise<{ bundle: Bundle; tar?: Buffer }> {
  try {
    return await generateStack(generator, new WorkQueue(1, 1), body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const describe = refusal.describe ?? ((line: string) => line);
    const errors = (e.details?.errors ?? []) as string[];
    if (e.code === 'VALIDATION_ERROR' && refusal.valuesAreArguments) {
      throw new UsageError(errors.length === 1 ? describe(errors[0]) : `${errors.length} problems:\n${errors.map((line) => `  - ${describe(line)}`).join('\n')}`, { showUsage: false });
    }
    const lines = [`${e.code}: ${describe(e.message)}`];
    for (const line of errors) lines.push(`  - ${describe(line)}`);
    throw new CliFailure(lines.join('\n'));
  }
}
