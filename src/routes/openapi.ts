// GET /api/v1/openapi.json: the raw OpenAPI 3.1 document (the one answer outside the envelope, so
// OpenAPI tools read the URL as it is), assembled from the route table and the same JSON Schemas that
// validate requests (schemas/*-request.schema.json) and that the tests hold responses to
// (schemas/api-responses.schema.json), so it cannot drift from the behaviour.
import { API_ERRORS, type ApiErrorCode } from '../errors.js';
import { schemaDocument } from '../schemas.js';
import type { Route } from './types.js';

const REQUEST_SCHEMAS = { GenerateRequest: 'generate-request', ValidateRequest: 'validate-request' } as const;
export const OPENAPI_PATH = '/api/v1/openapi.json';

export function openApiRoute(routes: Route[], version: string): Route {
  let body: Buffer | undefined;
  const self: Route = {
    method: 'GET', path: OPENAPI_PATH, bucket: 'read', auth: false,
    doc: { summary: 'This OpenAPI document (raw, not in the envelope)', tag: 'meta', operationId: 'getOpenApi', description: 'The OpenAPI 3.1 description of the API, served as the bare document so that OpenAPI tools (linters, client generators, API explorers) can read this URL directly.', raw: true },
    handle: () => {
      body ??= Buffer.from(JSON.stringify(buildDocument([...routes, self], version)));
      return { body, headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache' } };
    },
  };
  return self;
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

const HEADERS = {
  RateLimitLimit: { description: 'requests this caller may make in the current window of its bucket (read, write or generate)', schema: { type: 'integer', minimum: 1 } },
  RateLimitRemaining: { description: 'requests left in the current window', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'seconds from now until the window resets (a delay, not a timestamp)', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  WWWAuthenticate: { description: 'the scheme to use: Bearer', schema: { type: 'string' } },
  Allow: { description: 'the methods this path accepts', schema: { type: 'string' } },
  ContentDisposition: { description: 'attachment; filename="<stack name>.tar.gz"', schema: { type: 'string' } },
  ETag: { description: 'a tag of this answer; send it back in If-None-Match to get 304 while the catalogue is unchanged', schema: { type: 'string' } },
  CacheControlRevalidate: { description: 'no-cache: a client may keep the answer but must ask again before using it (with the ETag in If-None-Match where one is given)', schema: { const: 'no-cache' } },
  CacheControlNoStore: { description: 'no-store: the answer is not to be kept (it changes with every request, or is one stack)', schema: { const: 'no-store' } },
};
const REVALIDATE = { 'Cache-Control': { $ref: '#/components/headers/CacheControlRevalidate' } };
const NO_STORE = { 'Cache-Control': { $ref: '#/components/headers/CacheControlNoStore' } };

/** What an error response of a code carries, beside the envelope: typed details and headers. */
const ERROR_DETAILS: Partial<Record<ApiErrorCode, unknown>> = {
  VALIDATION_ERROR: { type: 'object', properties: { errors: { type: 'array', items: { type: 'string' }, description: 'every problem, each naming the field and what to fix' } }, required: ['errors'] },
  TARGET_UNSUPPORTED: { type: 'object', properties: { errors: { type: 'array', items: { type: 'string' }, description: 'every part the target cannot run, each naming what works' } }, required: ['errors'] },
  CONFLICT: {
    type: 'object',
    properties: { conflicts: { type: 'array', items: { type: 'object', properties: { services: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 } }, required: ['services'] } } },
    required: ['conflicts'],
  },
  PLUGIN_TEMPLATE_ERROR: {
    type: 'object',
    properties: {
      plugin: { type: 'string', description: 'the id of the plugin whose template failed' },
      kind: { enum: ['service', 'framework', 'proxy'] },
      template: { type: 'string', description: 'the template file in the plugin folder' },
      line: { type: 'integer', minimum: 1, description: 'the template line it failed at, when known' },
    },
    required: ['plugin', 'kind', 'template'],
  },
};
const ERROR_HEADERS: Partial<Record<ApiErrorCode, Record<string, unknown>>> = {
  UNAUTHORIZED: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
  METHOD_NOT_ALLOWED: { Allow: { $ref: '#/components/headers/Allow' } },
  RATE_LIMITED: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
  SERVICE_UNAVAILABLE: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
};

function errorSchemaName(code: ApiErrorCode): string {
  return `Error${code.toLowerCase().split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`;
}

function buildDocument(routes: Route[], version: string): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const [name, file] of Object.entries(REQUEST_SCHEMAS)) {
    schemas[name] = rewriteRefs(withoutId(schemaDocument(file)), (ref) => {
      const m = /^([a-z-]+)\.schema\.json#(.*)$/.exec(ref);
      const target = m && Object.entries(REQUEST_SCHEMAS).find(([, f]) => f === m[1]);
      return target ? `#/components/schemas/${target[0]}${m![2]}` : ref;
    });
  }
  const responses = schemaDocument('api-responses').$defs as Record<string, unknown>;
  for (const [name, schema] of Object.entries(responses)) {
    // the general error shape is given per code below
    if (name === 'error') continue;
    schemas[name] = rewriteRefs(schema, (ref) => ref.replace(/^#\/\$defs\//, '#/components/schemas/'));
  }
  for (const code of Object.keys(API_ERRORS) as ApiErrorCode[]) {
    const details = ERROR_DETAILS[code];
    schemas[errorSchemaName(code)] = {
      type: 'object',
      description: `${code}: ${API_ERRORS[code].meaning}`,
      properties: {
        ok: { const: false },
        error: {
          type: 'object',
          properties: { code: { const: code }, message: { type: 'string', description: 'what went wrong and what to do' }, ...(details ? { details } : {}) },
          required: details ? ['code', 'message', 'details'] : ['code', 'message'],
        },
      },
      required: ['ok', 'error'],
    };
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const doc = route.doc;
    const op: Record<string, unknown> = {
      operationId: operationId(route),
      summary: doc?.summary ?? route.path,
      description: doc?.description ?? doc?.summary ?? route.path,
      tags: [doc?.tag ?? (route.method === 'POST' ? 'stacks' : 'catalogue')],
      security: route.auth ? [{ bearer: [] }] : [],
    };
    const params = [...(route.path.match(/:([A-Za-z]+)/g) ?? []).map((p) => ({ name: p.slice(1), in: 'path', required: true, description: `the ${p.slice(1)} of the entry`, schema: { type: 'string' } })),
      ...(doc?.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: 'string' } }))];
    if (params.length) op.parameters = params;
    if (doc?.requestBody) op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${doc.requestBody}` } } } };
    op.responses = { ...successResponses(route), ...errorResponses(route) };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Stackwright stack generation service',
      version,
      description: 'Generates the files of Docker Compose stacks for AI-agent frameworks. Every answer is the JSON envelope { ok: true, data } or { ok: false, error: { code, message, details? } }, except the .tar.gz of generate (format: "tar") and this document. Every answer carries X-RateLimit-* headers for the bucket the operation counts against (read, write, generate); an answer that spends no token (a request the HTTP parser refused, say) carries the read bucket of its caller, uncounted.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Stackwright maintainers', url: 'https://github.com/stackwright/stackwright' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'catalogue', description: 'Services, skill packs, presets, frameworks and proxies (public reads)' },
      { name: 'stacks', description: 'Validate a selection and generate its files (API key needed)' },
      { name: 'meta', description: 'Health and this document' },
    ],
    paths,
    components: {
      schemas,
      headers: HEADERS,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'one of the keys set in STACK_API_KEY' } },
    },
  };
}

function envelope(response: string) {
  return { type: 'object', properties: { ok: { const: true }, data: { $ref: `#/components/schemas/${response}` } }, required: ['ok', 'data'] };
}

/**
 * The success answers of a route, with the headers the service sends on them: a catalogue read has an
 * ETag and answers 304 to it (envelope.ts sendCacheableEnvelope); health (its uptime changes every
 * second) and the POSTs are no-store and have neither; this document is no-cache without an ETag.
 */
function successResponses(route: Route): Record<string, unknown> {
  const doc = route.doc;
  if (doc?.raw) {
    return { 200: { description: 'the OpenAPI document', headers: { ...RATE_HEADERS, ...REVALIDATE }, content: { 'application/json': { schema: { type: 'object', description: 'an OpenAPI 3.1 document' } } } } };
  }
  const content: Record<string, unknown> = { 'application/json': { schema: doc?.response ? envelope(doc.response) : { type: 'object' } } };
  const withEtag = route.method === 'GET' && !doc?.volatile;
  const headers: Record<string, unknown> = { ...RATE_HEADERS, ...(withEtag ? { ...REVALIDATE, ETag: { $ref: '#/components/headers/ETag' } } : NO_STORE) };
  if (doc?.download) {
    content[doc.download] = { schema: { type: 'string', format: 'binary', description: 'the bundle as a gzip-compressed tar, every file under <name>/' } };
    headers['Content-Disposition'] = { $ref: '#/components/headers/ContentDisposition' };
  }
  const out: Record<string, unknown> = {
    200: {
      description: doc?.download ? 'the bundle: JSON by default; with "format": "tar" in the body, the .tar.gz (application/gzip)' : 'success',
      headers,
      content,
    },
  };
  if (withEtag) out[304] = { description: 'not modified: the If-None-Match tag still matches', headers: { ...RATE_HEADERS, ...REVALIDATE, ETag: { $ref: '#/components/headers/ETag' } } };
  return out;
}

function errorResponses(route: Route): Record<string, unknown> {
  // the HTTP parser's own refusals (400, 408, 431) and the connection caps (503) can meet any operation
  const codes: ApiErrorCode[] = ['VALIDATION_ERROR'];
  if (route.auth) codes.push('UNAUTHORIZED');
  if (route.path.includes(':')) codes.push('NOT_FOUND');
  codes.push('METHOD_NOT_ALLOWED');
  if (route.doc?.conflict) codes.push('CONFLICT');
  // validate and generate check the deployment target (src/emit/targets.ts)
  if (route.bucket === 'write' || route.bucket === 'generate') codes.push('TARGET_UNSUPPORTED');
  codes.push('REQUEST_TIMEOUT', 'RATE_LIMITED', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE');
  if (route.bucket === 'generate') codes.push('PLUGIN_TEMPLATE_ERROR');
  const out: Record<string, { description: string; headers: unknown; content: { 'application/json': { schema: { $ref?: string; anyOf?: unknown[] } } } }> = {};
  const respond = (status: number, code: ApiErrorCode, description: string) => {
    const schema = { $ref: `#/components/schemas/${errorSchemaName(code)}` };
    const same = out[status];
    if (same) {
      // two codes share a status (500: INTERNAL_ERROR and PLUGIN_TEMPLATE_ERROR): either body may come
      const body = same.content['application/json'];
      body.schema = { anyOf: [...(body.schema.anyOf ?? [body.schema]), schema] };
      same.description += `; ${description}`;
      return;
    }
    out[status] = {
      description,
      headers: { ...RATE_HEADERS, ...NO_STORE, ...ERROR_HEADERS[code] },
      content: { 'application/json': { schema } },
    };
  };
  for (const code of codes) respond(API_ERRORS[code].status, code, `${code}: ${API_ERRORS[code].meaning}`);
  // an oversized body is a VALIDATION_ERROR with its own status (docs/decisions.md)
  if (route.method === 'POST') respond(413, 'VALIDATION_ERROR', 'VALIDATION_ERROR: the body is larger than STACK_BODY_LIMIT_BYTES');
  respond(417, 'VALIDATION_ERROR', 'VALIDATION_ERROR: an Expect header other than 100-continue');
  return out;
}

function operationId(route: Route): string {
  if (route.doc?.operationId) return route.doc.operationId;
  const words = route.path.replace('/api/v1/', '').split(/[/.:-]/).filter(Boolean);
  return route.method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
}

function withoutId(schema: Record<string, unknown>): Record<string, unknown> {
  const { $id: _id, ...rest } = schema;
  return rest;
}

function rewriteRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, rewrite));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? rewrite(v) : rewriteRefs(v, rewrite)]));
  }
  return value;
}
