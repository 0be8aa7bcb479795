// The MCP tools over stdio, for an agent that runs Stackwright as a local process (`stackwright mcp`).
// The catalogue and templates are loaded here as the HTTP server loads them; no key and no rate limit
// (the caller owns the process). stdout carries the protocol only: the log (the service's JSON lines,
// or short human lines on a terminal) goes to stderr.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { Transform, type Readable, type Writable } from 'node:stream';
import { readConfig } from '../config.js';
import { CatalogueLoadError, loadCatalogue } from '../catalogue/load.js';
import { formatProblem } from '../catalogue/problems.js';
import type { Catalogue } from '../catalogue/types.js';
import { Generator } from '../pipeline/generate.js';
import { WorkQueue } from '../usecases/work-queue.js';
import { createLogger } from '../observability/log.js';
import { STACKWRIGHT_VERSION } from '../version.js';
import { MAX_JSON_DEPTH, nestingDepth } from '../json-nesting.js';
import { createMcpServer } from './tools.js';
import { processHasher } from '../bundle/parallel-hash.js';

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
  const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize, config.bundleCacheBytes, config.renderCacheBytes, processHasher(config.hashThread));
  const server = createMcpServer({
    catalogue: () => catalogue,
    generator: () => generator,
    generations: new WorkQueue(2, config.generateQueue),
    log,
    version: STACKWRIGHT_VERSION,
  });
  const stdout = options.stdout ?? process.stdout;
  await server.connect(new StdioServerTransport(withinNestingLimit(options.stdin ?? process.stdin, stdout, log), stdout));
  log.info(`Stackwright ${STACKWRIGHT_VERSION} MCP server on stdio: ${catalogue.services.size} services, ${catalogue.presets.size} presets`);
  return { close: () => server.close() };
}

/**
 * The messages from `input`, one a line as the stdio transport reads them, without those that nest deeper
 * than MAX_JSON_DEPTH (the limit a body on /mcp meets): each of those is answered here with a JSON-RPC
 * Invalid Request (its id cannot be known without parsing it) and never reaches JSON.parse.
 */
function withinNestingLimit(input: Readable, output: Writable, log: { warn: (message: string) => void }): Readable {
  // bytes, not text, until a line is whole: a chunk may end inside a character, never inside a newline
  let partial: Buffer = Buffer.alloc(0);
  const lines = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bytes = partial.length ? Buffer.concat([partial, chunk]) : chunk;
      const end = bytes.lastIndexOf(0x0a);
      partial = bytes.subarray(end + 1);
      if (end < 0) return done();
      const kept: string[] = [];
      for (const line of bytes.toString('utf8', 0, end).split('\n')) {
        if (nestingDepth(line, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH) {
          kept.push(line);
          continue;
        }
        const message = `the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels; it was not read`;
        log.warn(`stdio: ${message}`);
        output.write(`${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } })}\n`);
      }
      done(null, kept.length ? `${kept.join('\n')}\n` : undefined);
    },
  });
  input.pipe(lines);
  return lines;
}
