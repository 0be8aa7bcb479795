// The engine as the CLI uses it: the catalogue the service would load (same settings, same loader, the
// same start-up snapshot),
// and the API's own generate function, so the CLI writes the bytes the API would send.
import { readConfig, type Config } from '../config.js';
import { CatalogueLoadError } from '../catalogue/load.js';
import { loadCatalogueWithCache } from '../catalogue/snapshot-cache.js';
import { Generator, type Bundle } from '../engine/generate.js';
import { ApiError } from '../errors.js';
import { WorkQueue } from '../http/work-queue.js';
import { generateStack } from '../routes/write-routes.js';

export class CliFailure extends Error {}

export function loadGenerator(env: NodeJS.ProcessEnv = process.env): { config: Config; generator: Generator } {
  let config: Config;
  try {
    config = readConfig(env);
  } catch (e) {
    throw new CliFailure(`configuration error: ${(e as Error).message}`);
  }
  // the server's start-up snapshot, used only while its key (a hash of every plugin and catalogue file)
  // matches the files on disk: a changed plugin loads in full and rewrites it
  const loaded = loadCatalogueWithCache({ plugins: config.pluginsDir, catalogue: config.catalogueDir }, config.catalogueCacheFile);
  if (!loaded.catalogue) throw new CliFailure(`${new CatalogueLoadError(loaded.errors).message}\n(the catalogue in ${config.pluginsDir}; stackwright lint lists the same)`);
  return { config, generator: new Generator(loaded.catalogue, config.templatesDir, 0, 0) };
}

/** The bundle (and its tar when format is tar) of a request body, or a CliFailure listing what to fix. */
export async function generateBundle(generator: Generator, body: unknown): Promise<{ bundle: Bundle; tar?: Buffer }> {
  try {
    return await generateStack(generator, new WorkQueue(1, 1), body);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    const lines = [`${e.code}: ${e.message}`];
    const errors = (e.details?.errors ?? []) as string[];
    for (const line of errors) lines.push(`  - ${line}`);
    throw new CliFailure(lines.join('\n'));
  }
}
