// POST /api/v1/validate and POST /api/v1/generate (spec section 4): the HTTP form of the use cases in
// usecases/generate.ts, which the MCP tools and the CLI call too.
import { bundleJsonChunks, type Bundle, type Generator } from '../pipeline/generate.js';
import { successEnvelopeOf, type ChunkedBody } from '../http/envelope.js';
import { generateStack, validateStack } from '../usecases/generate.js';
import type { Route } from './types.js';
import type { WorkQueue } from '../usecases/work-queue.js';

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
