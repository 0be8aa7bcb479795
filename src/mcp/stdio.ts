// The MCP tools over stdio, for an agent that runs Stackwright as a local process (`stackwright mcp`).
// The catalogue and templates are loaded here as the HTTP server loads them; no key and no rate limit
// (the caller owns the process). stdout carries the protocol only: the log (the service's JSON lines,
// or short human lines on a terminal) goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import { readConfig } from '../config.js';
import { CatalogueLoadError, loadCatalogue } from '../catalogue/load.js';
import { formatProblem } from '../catalogue/problems.js';
import type { Catalogue } from '../catalogue/types.js';
import { Generator } from '../pipeline/generate.js';
import { WorkQueue } from '../usecases/work-queue.js';
import { createLogger } from '../observability/log.js';
import { STACKWRIGHT_VERSION } from '../version.js';
import { createMcpServer } from './tools.js';

export interface StdioOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: Readable;
  stdout?: Writable;
}

/** Loads the catalogue (throwing on catalogue errors) and serves the tools on stdin/stdout until closed. */
export async function runStdioServer(options: StdioOptions = {}): Promise<{ close(): Promise<void> }> {
  const config = readConfig(options.env ?? process.env);
  const log = createLogger(config.log, process.stderr);
  const loaded = loadCatalogue({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
  for (const w of loaded.warnings) log.warn({ file: w.file, pointer: w.pointer || '/', rule: w.rule }, formatProblem(w));
  if (!loaded.catalogue) throw new CatalogueLoadError(loaded.errors);
  const catalogue: Catalogue = loaded.catalogue;
  const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize, config.bundleCacheBytes, config.renderCacheBytes);
  const server = createMcpServer({
    catalogue: () => catalogue,
    generator: () => generator,
    generations: new WorkQueue(2, config.generateQueue),
    log,
    version: STACKWRIGHT_VERSION,
  });
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  log.info(`Stackwright ${STACKWRIGHT_VERSION} MCP server on stdio: ${catalogue.services.size} services, ${catalogue.presets.size} presets`);
  return { close: () => server.close() };
}
