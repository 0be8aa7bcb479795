// POST /api/v1/validate and POST /api/v1/generate (spec section 4). Both parse the body with the same
// schemas and resolve with the same resolver, so validate never accepts what generate refuses (apart
// from conflicts: a warning on validate, 409 on generate, as DECISIONS says).
import { archiveBuffer } from '../engine/archive.js';
import { bundleJsonChunks, type Bundle, type Generator } from '../engine/generate.js';
import { successEnvelopeOf, type ChunkedBody } from '../http/envelope.js';
import { invalidConfiguration } from '../errors.js';
import { resolve, type Resolution } from '../engine/resolve.js';
import { checkTarget } from '../emit/targets.js';
import { parseStackRequest, type ParsedRequest } from './request.js';
import type { Route } from './types.js';
import type { WorkQueue } from '../http/work-queue.js';

export function writeRoutes({ generator, generations }: { generator: Generator; generations: WorkQueue }): Route[] {
  return [
    {
      method: 'POST', path: '/api/v1/validate', bucket: 'write', auth: true,
      doc: { summary: 'Resolve and check a selection without generating files', requestBody: 'ValidateRequest', response: 'validation', operationId: 'validateStack', description: 'Resolves the selection (preset, services with their requirements, skill packs, frameworks, proxy) and reports warnings, the resolved services and skill packs and two memory figures (estimatedMemoryMB: what the stack needs, the sum of the minimums of its parts; memoryLimitMB: the worst case, the sum of the limits of its containers), without generating files. Conflicts are warnings here and 409 on generate.' },
      handle: ({ body }) => ({ data: validateStack(generator, body) }),
    },
    {
      method: 'POST', path: '/api/v1/generate', bucket: 'generate', auth: true,
      doc: { summary: 'Generate the files of a stack: JSON bundle, or a .tar.gz with format tar', requestBody: 'GenerateRequest', response: 'bundle', download: 'application/gzip', conflict: true, operationId: 'generateStack', description: 'Generates every file of the stack. The answer is the JSON bundle unless the body has "format": "tar", which returns the .tar.gz (application/gzip, Content-Disposition attachment). The same request gives the same bytes for the same catalogue revision.' },
      handle: async ({ body }) => {
        const { bundle, tar } = await generateStack(generator, generations, body);
        if (tar) {
          return {
            body: tar,
            headers: {
              'Content-Type': 'application/gzip',
              'Content-Disposition': `attachment; filename="${bundle.name}.tar.gz"`,
              'Cache-Control': 'no-store',
            },
          };
        }
        return { envelope: bundleEnvelope(bundle) };
      },
    },
  ];
}

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
  checkTarget(resolution!, parsed.request.deploymentType);
  return resolution!;
}

const envelopes = new WeakMap<Bundle, ChunkedBody>();

/** The encoded success envelope of a bundle: a bundle served again from the cache is not re-encoded. */
function bundleEnvelope(bundle: Bundle): ChunkedBody {
  let body = envelopes.get(bundle);
  if (!body) {
    body = successEnvelopeOf(bundleJsonChunks(bundle));
    envelopes.set(bundle, body);
  }
  return body;
}
