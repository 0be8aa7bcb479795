// Validate and generate, as every door offers them (the HTTP routes, the MCP tools, the CLI). Both parse
// the body with the same schemas and resolve with the same resolver, so validate never accepts what
// generate refuses (apart from conflicts: a warning on validate, 409 on generate, as DECISIONS says).
import { archiveBuffer } from '../bundle/archive.js';
import type { Bundle } from '../bundle/bundle.js';
import type { Generator } from '../pipeline/generate.js';
import { invalidConfiguration } from '../errors.js';
import { resolve, type Resolution } from '../model/resolve.js';
import { checkTarget } from '../emit/targets.js';
import { parseStackRequest, type ParsedRequest } from './request.js';
import type { WorkQueue } from './work-queue.js';

/** The answer of validate for a body (what the HTTP route and the MCP tool return); 400 on problems. */
export function validateStack(generator: Generator, body: unknown) {
  const r = checkRequest(generator, parseStackRequest('validate', body));
  return {
    valid: true,
    warnings: r.warnings,
    resolvedServices: r.resolvedServices,
    resolvedSkills: r.resolvedSkills,
    estimatedMemoryMB: r.estimatedMemoryMB,
    memoryLimitMB: r.memoryLimitMB,
  };
}

/** The bundle of a generate body, and its .tar.gz when the body asks for format tar; 400 or 409 on problems. */
export async function generateStack(generator: Generator, generations: WorkQueue, body: unknown): Promise<{ bundle: Bundle; tar?: Buffer }> {
  const parsed = parseStackRequest('generate', body);
  // a schema-valid request goes straight to the generator, which answers a repeat from its cache
  // and resolves the rest itself; the resolver runs here only to list its problems beside the schema's
  if (parsed.errors.length) checkRequest(generator, parsed);
  const request = parsed.request;
  const bundle = await generations.run(() => generator.generate({ ...request, name: request.name! }));
  if (request.format !== 'tar') return { bundle };
  return { bundle, tar: await generations.run(() => archiveBuffer(bundle)) };
}

/**
 * The resolution of a valid request, or one 400 with the schema's and the resolver's problems together,
 * so a client fixes everything in one round; the resolver runs only when the fields it reads are well-formed.
 */
export function checkRequest(generator: Generator, parsed: ParsedRequest): Resolution {
  const resolution = parsed.selectionUsable ? resolve(generator.catalogue, parsed.request) : undefined;
  const errors = [...parsed.errors, ...(resolution?.errors ?? [])];
  if (errors.length) throw invalidConfiguration(errors);
  checkTarget(resolution!, parsed.request.deploymentType, parsed.request.gpu ?? false);
  return resolution!;
}
