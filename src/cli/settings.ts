// The settings a CLI command runs with: the service's own (the environment, docs/configuration.md).
import { readConfig, type Config } from '../config.js';
import { CliFailure } from './output.js';

/** The settings the service would use, or a CliFailure saying what is wrong. */
export function cliConfig(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return readConfig(env);
  } catch (e) {
    throw new CliFailure(`configuration error: ${(e as Error).message}`);
  }
}

export const catalogueDirs = (config: Config) => ({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
