// GET /api/v1/openapi.json: an OpenAPI 3.1 description assembled from the route table and the same JSON
// Schemas that validate requests (schemas/*-request.schema.json) and the tests hold responses to
// (schemas/api-responses.schema.json), so it cannot drift from the behaviour.
import { API_ERRORS } from '../errors.js';
import { schemaDocument } from '../schemas.js';
import type { Route } from './types.js';

const REQUEST_SCHEMAS = { GenerateRequest: 'generate-request', ValidateRequest: 'validate-request' } as const;

export function openApiRoute(routes: Route[], version: string): Route {
  const document = buildDocument(routes, version);
  return {
    method: 'GET', path: '/api/v1/openapi.json', bucket: 'read', auth: false,
    doc: { summary: 'This OpenAPI description' },
    handle: () => ({ data: document }),
  };
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
    schemas[name] = rewriteRefs(schema, (ref) => ref.replace(/^#\/\$defs\//, '#/components/schemas/'));
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const doc = route.doc;
    const op: Record<string, unknown> = { summary: doc?.summary ?? route.path, operationId: operationId(route) };
    const params = [...(route.path.match(/:([A-Za-z]+)/g) ?? []).map((p) => ({ name: p.slice(1), in: 'path', required: true, schema: { type: 'string' } })),
      ...(doc?.query ?? []).map((q) => ({ name: q.name, in: 'query', required: false, description: q.description, schema: { type: 'string' } }))];
    if (params.length) op.parameters = params;
    if (route.auth) op.security = [{ bearer: [] }];
    if (doc?.requestBody) op.requestBody = { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${doc.requestBody}` } } } };
    const ok = doc?.response
      ? { description: 'success', content: { 'application/json': { schema: envelope(doc.response) }, ...(doc.download ? { [doc.download]: { schema: { type: 'string', format: 'binary' } } } : {}) } }
      : { description: 'success' };
    op.responses = { 200: ok, ...errorResponses(route) };
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: op };
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Stackwright stack generation service', version, description: 'Generates Docker Compose stacks for AI-agent frameworks. Every response is the envelope { ok, data } or { ok: false, error }, except the tar download.' },
    servers: [{ url: '/' }],
    paths,
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a key from STACK_API_KEY' } } },
  };
}

function envelope(response: string) {
  return { type: 'object', properties: { ok: { const: true }, data: { $ref: `#/components/schemas/${response}` } }, required: ['ok', 'data'] };
}

function errorResponses(route: Route): Record<string, unknown> {
  const codes: (keyof typeof API_ERRORS)[] = ['RATE_LIMITED', 'INTERNAL_ERROR'];
  if (route.method === 'POST' || route.doc?.query) codes.unshift('VALIDATION_ERROR');
  if (route.auth) codes.unshift('UNAUTHORIZED');
  if (route.path.includes(':')) codes.unshift('NOT_FOUND');
  if (route.doc?.conflict) codes.unshift('CONFLICT');
  const out: Record<string, unknown> = {};
  for (const code of codes) {
    out[API_ERRORS[code].status] = { description: `${code}: ${API_ERRORS[code].meaning}`, content: { 'application/json': { schema: { $ref: '#/components/schemas/error' } } } };
  }
  return out;
}

function operationId(route: Route): string {
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
