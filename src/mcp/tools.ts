// The MCP tools: a thin door onto the same engine as the HTTP API. Every tool reads the catalogue and
// the generator through `McpEngine` at call time (a hot reload swaps them) and answers through the
// use cases the routes call (src/usecases/): views.ts for catalogue entries, the service filters of
// list.ts, validateStack/generateStack of generate.ts. Errors are the API's ApiError, returned as a tool
// error carrying the same { code, message, details } as the HTTP envelope; a tool this server does not
// have is a JSON-RPC error instead (-32602), as MCP asks.
//
// Answers are sized for an agent's context: lists are compact and paged by default (paging.ts), the
// full entries come on request, generate_stack lists its files and sends the content of those asked
// for, and JSON is never pretty-printed. test/mcp/mcp.test.ts holds every default answer under 16 KB.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue, SkillPackPlugin } from '../catalogue/types.js';
import { didYouMean } from '../catalogue/problems.js';
import type { Bundle, Generator } from '../pipeline/generate.js';
import { fileHash } from '../bundle/provenance.js';
import { ApiError, validationError } from '../errors.js';
import type { BucketName } from '../usecases/buckets.js';
import type { WorkQueue } from '../usecases/work-queue.js';
import { filteredServiceIds, MATURITIES, serviceFilterErrors } from '../usecases/list.js';
import { frameworkView, presetDetailView, presetListView, proxyView, serviceView, skillPackView } from '../usecases/views.js';
import { generateStack, validateStack } from '../usecases/generate.js';
import type { Logger } from '../observability/log.js';
import { schemaDocument } from '../schemas.js';
import { checkArgs, type Args } from './arguments.js';
import { explain } from './explain.js';
import { oneLine, search, searchable } from '../catalogue/search.js';
import { page, PAGING_ARGS, PAGING_PROPERTIES, type Page } from './paging.js';

/** What the tools need, read at every call. */
export interface McpEngine {
  catalogue(): Catalogue;
  generator(): Generator;
  /** the server's bound on generations in flight (shared with POST /api/v1/generate) */
  generations: WorkQueue;
  /** where an unexpected error of a tool is logged (the service's JSON log; stderr on stdio) */
  log: Logger;
  version: string;
}

type ToolResult = CallToolResult;

interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** the rate-limit bucket of the matching API operation */
  bucket: BucketName;
  inputSchema: (catalogue: Catalogue) => Tool['inputSchema'];
  call(args: Args, engine: McpEngine): ToolResult | Promise<ToolResult>;
}

const ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
const TEXT = { type: 'string', maxLength: 200 } as const;
const DETAIL_ONLY = { detail: PAGING_PROPERTIES.detail };

/** Whether a skill pack needs the service (required) or can use it (optional). */
const packNeeds = (p: SkillPackPlugin, service: string) => p.manifest.requiredServices.includes(service);
const packCanUse = (p: SkillPackPlugin, service: string) => (p.manifest.optionalServices ?? []).includes(service);
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The input schema of a paged list tool: its filters, then limit, cursor and detail. */
const listInput = (filters: Record<string, object>): Tool['inputSchema'] => ({ type: 'object', properties: { ...filters, ...PAGING_PROPERTIES }, additionalProperties: false });

/** A page of a list as the answer: the total, the entries under `key` as `view` shows them, the next cursor. */
function pagedJson<T>(key: string, p: Page<T>, view: (entry: T) => unknown): ToolResult {
  return json({ total: p.total, [key]: p.items.map(view), ...(p.nextCursor ? { nextCursor: p.nextCursor } : {}) });
}

/** A JSON result: the data as compact JSON text (for every client) and as structured content. */
function json(data: object): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data as Record<string, unknown> };
}

/** An ApiError as a tool error: the same code, message and details as the HTTP envelope. */
export function toolError(err: ApiError): ToolResult {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  const hint = err.code === 'VALIDATION_ERROR' || err.code === 'CONFLICT' ? ' (call explain_error with the code or one of the details for what to do)' : '';
  return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}${hint}\n${JSON.stringify({ error })}` }], structuredContent: { error } };
}

function unknownService(catalogue: Catalogue, id: string): ApiError {
  return new ApiError('NOT_FOUND', `service "${id}" does not exist${didYouMean(id, catalogue.services.keys())}; list_services lists the ids`);
}


/** The validate request schema with its references to the generate schema inlined (one self-contained document). */
function requestSchema(kind: 'validate-request' | 'generate-request'): Tool['inputSchema'] {
  const generate = schemaDocument('generate-request') as { properties: Record<string, unknown> };
  const doc = schemaDocument(kind) as Record<string, unknown> & { properties: Record<string, unknown> };
  const properties = Object.fromEntries(Object.entries(doc.properties).map(([name, prop]) => {
    const ref = (prop as { $ref?: string }).$ref;
    const m = ref && /^generate-request\.schema\.json#\/properties\/([A-Za-z]+)$/.exec(ref);
    return [name, m ? generate.properties[m[1]] : prop];
  }));
  const { $id: _id, title, ...rest } = doc;
  return { ...rest, type: 'object', description: String(title), properties } as Tool['inputSchema'];
}

/** The input of generate_stack: the API's request, plus which files' content to send back. */
function generateSchema(): Tool['inputSchema'] {
  const schema = requestSchema('generate-request');
  return {
    ...schema,
    properties: {
      ...schema.properties,
      files: {
        type: 'array', maxItems: 200, uniqueItems: true,
        items: { type: 'string', maxLength: 300 },
        description: 'paths of files whose content to return (e.g. ["docker-compose.yml", "README.md"]), or ["*"] for every file; by default only the list of files with their size and sha256. Not sent to the generator: the same request gives the same files either way',
      },
      cursor: { ...PAGING_PROPERTIES.cursor, description: 'nextCursor of the previous answer, with the same request, for the next page of the file list (a large stack lists its files in pages)' },
    },
  };
}

export const TOOLS: ToolDef[] = [
  {
    name: 'list_services',
    title: 'List or search companion services',
    description: 'Lists the companion services a stack can hold (databases, vector stores, model servers, observability, ...), as GET /api/v1/services. Filters combine: category (see list_categories), tag, maturity, and text (every word must appear in the id, name, tags or description; best matches first). Each entry is id, name, category and one line of description; detail: true gives the full record (image, ports, requires, conflictsWith, minMemoryMB, tags), as does get_service. Paged: total, and nextCursor to pass as cursor for the next page. Use the ids in validate_stack / generate_stack `services`.',
    bucket: 'read',
    inputSchema: (c) => listInput({
      category: { type: 'string', enum: [...c.categories.keys()], description: 'a category id' },
      tag: { type: 'string', description: 'a tag, e.g. "vector-db"' },
      maturity: { type: 'string', enum: [...MATURITIES], description: 'stable, beta or experimental' },
      text: { ...TEXT, description: 'words to search for in id, name, tags and description' },
    }),
    call: (args, engine) => {
      const { limit, cursor, detail, ...filters } = checkArgs(args, { category: { type: 'string' }, tag: { type: 'string' }, maturity: { type: 'string' }, text: { type: 'string' }, ...PAGING_ARGS });
      const catalogue = engine.catalogue();
      const errors = serviceFilterErrors(catalogue, filters);
      if (errors.length) throw validationError('the arguments are invalid', errors);
      const ids = filteredServiceIds(catalogue, filters);
      const matching = search([...catalogue.services.values()].filter((s) => !ids || ids.has(s.id)), filters.text, searchable.service);
      return pagedJson('services', page(matching, { tool: 'list_services', filters, revision: catalogue.revision, limit, cursor, detail }),
        (s) => (detail ? serviceView(catalogue, s) : { id: s.id, name: s.manifest.name, category: s.manifest.category, description: oneLine(s.manifest.description) }));
    },
  },
  {
    name: 'get_service',
    title: 'One companion service',
    description: 'One companion service by id, as GET /api/v1/services/{id}, plus the skill packs that need or can use it. An unknown id is an error naming the nearest id.',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: { id: { type: 'string', pattern: ID_PATTERN, description: 'a service id from list_services' } }, required: ['id'], additionalProperties: false }),
    call: (args, engine) => {
      const { id } = checkArgs(args, { id: { type: 'string', required: true } });
      const catalogue = engine.catalogue();
      const s = catalogue.services.get(id!);
      if (!s) throw unknownService(catalogue, id!);
      const packs = [...catalogue.skillPacks.values()];
      return json({
        ...serviceView(catalogue, s),
        skillPacksRequiring: packs.filter((p) => packNeeds(p, s.id)).map((p) => p.id),
        skillPacksUsing: packs.filter((p) => packCanUse(p, s.id)).map((p) => p.id),
      });
    },
  },
  {
    name: 'list_categories',
    title: 'Service categories',
    description: 'The categories services are grouped in (id, name, and how many services each holds; detail: true adds each description): the values of list_services `category`.',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: DETAIL_ONLY, additionalProperties: false }),
    call: (args, engine) => {
      const { detail } = checkArgs(args, { detail: PAGING_ARGS.detail });
      const catalogue = engine.catalogue();
      const categories = [...catalogue.categories.values()].map((c) => ({
        id: c.id, name: c.name, ...(detail ? { description: c.description } : {}), services: catalogue.servicesByCategory.get(c.id)?.length ?? 0,
      }));
      return json({ total: categories.length, categories });
    },
  },
  {
    name: 'list_skill_packs',
    title: 'Skill packs',
    description: 'The skill packs (ready-made agent skills), as GET /api/v1/skills. Each entry is id, name, one line of description and requiredServices (must be in `services`, or validation fails); detail: true adds optionalServices (used when present) and the skills. Filters: service (packs that need or can use that service id; an unknown id is NOT_FOUND) and text (words in id, name, skills, description). Paged like list_services. Use the ids in `skills`.',
    bucket: 'read',
    inputSchema: () => listInput({
      service: { type: 'string', pattern: ID_PATTERN, description: 'keep only packs that require or can use this service id' },
      text: { ...TEXT, description: 'words to search for in id, name, skills and description' },
    }),
    call: (args, engine) => {
      const { limit, cursor, detail, ...filters } = checkArgs(args, { service: { type: 'string' }, text: { type: 'string' }, ...PAGING_ARGS });
      const catalogue = engine.catalogue();
      const { service } = filters;
      if (service !== undefined && !catalogue.services.has(service)) throw unknownService(catalogue, service);
      const packs = [...catalogue.skillPacks.values()].filter((p) => service === undefined || packNeeds(p, service) || packCanUse(p, service));
      return pagedJson('skillPacks', page(search(packs, filters.text, searchable.skillPack), { tool: 'list_skill_packs', filters, revision: catalogue.revision, limit, cursor, detail }),
        (p) => (detail ? skillPackView(p) : { id: p.id, name: p.manifest.name, description: oneLine(p.manifest.description), requiredServices: [...p.manifest.requiredServices] }));
    },
  },
  {
    name: 'list_presets',
    title: 'Presets',
    description: 'Ready-made selections of services and skill packs, as GET /api/v1/presets: id, name and one line of description each (detail: true adds the service and skill pack ids; text searches). With `id`, one preset in detail as GET /api/v1/presets/{name}: service names and categories, skill counts, estimatedMemoryMB (what it needs: the sum of its parts\' minimums) and memoryLimitMB (the worst case: the sum of their limits). Send `preset` to validate_stack / generate_stack to use one (it replaces services and skills).',
    bucket: 'read',
    inputSchema: () => listInput({
      id: { type: 'string', pattern: ID_PATTERN, description: 'a preset id for the detail form' },
      text: { ...TEXT, description: 'words to search for in id, name and description' },
    }),
    call: (args, engine) => {
      const { id, limit, cursor, detail, ...filters } = checkArgs(args, { id: { type: 'string' }, text: { type: 'string' }, ...PAGING_ARGS });
      const catalogue = engine.catalogue();
      if (id !== undefined) {
        if (filters.text !== undefined || limit !== undefined || cursor !== undefined || detail !== undefined) {
          throw validationError('the arguments are invalid', ['id asks for one preset: send it alone, or leave it out to list presets with text, limit, cursor and detail']);
        }
        const preset = catalogue.presets.get(id);
        if (!preset) throw new ApiError('NOT_FOUND', `preset "${id}" does not exist${didYouMean(id, catalogue.presets.keys())}`);
        return json(presetDetailView(catalogue, preset));
      }
      return pagedJson('presets', page(search([...catalogue.presets.values()], filters.text, searchable.preset), { tool: 'list_presets', filters, revision: catalogue.revision, limit, cursor, detail }),
        (p) => (detail ? presetListView(p) : { id: p.id, name: p.manifest.name, description: oneLine(p.manifest.description) }));
    },
  },
  {
    name: 'list_frameworks_and_proxies',
    title: 'Agent frameworks and reverse proxies',
    description: 'The agent frameworks (values of primaryFramework and companionFrameworks; `defaultFramework` is the one used when primaryFramework is omitted) and the reverse proxies (values of proxy, besides "none"): id, name and one line of description each; detail: true gives the records of GET /api/v1/frameworks and GET /api/v1/proxies.',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: DETAIL_ONLY, additionalProperties: false }),
    call: (args, engine) => {
      const { detail } = checkArgs(args, { detail: PAGING_ARGS.detail });
      const catalogue = engine.catalogue();
      const brief = (p: { id: string; manifest: { name: string; description: string } }) => ({ id: p.id, name: p.manifest.name, description: oneLine(p.manifest.description) });
      return json({
        defaultFramework: catalogue.defaultFramework,
        frameworks: [...catalogue.frameworks.values()].map((f) => (detail ? frameworkView(catalogue, f) : { ...brief(f), runtime: f.manifest.runtime })),
        proxies: [...catalogue.proxies.values()].map((p) => (detail ? proxyView(p) : brief(p))),
      });
    },
  },
  {
    name: 'validate_stack',
    title: 'Validate a stack selection',
    description: 'Resolves and checks a selection without generating files, exactly as POST /api/v1/validate: returns warnings (CONFLICT, GPU_REQUIRED, GPU_UNUSED, PLATFORM_UNSUPPORTED, PRESET_OVERRIDES), resolvedServices (the framework, required services added, dependency first), resolvedSkills, estimatedMemoryMB (what the stack needs: the sum of its parts\' minimums) and memoryLimitMB (the worst case: the sum of their memory limits). Problems (unknown ids with the nearest id, a skill pack without its service, bad name or domain) come back together as one VALIDATION_ERROR listing every problem. name is optional here. Call this before generate_stack.',
    bucket: 'write',
    inputSchema: () => requestSchema('validate-request'),
    call: (args, engine) => json(validateStack(engine.generator(), args)),
  },
  {
    name: 'generate_stack',
    title: 'Generate the files of a stack',
    description: 'Generates the stack exactly as POST /api/v1/generate (same request fields; name is required): docker-compose.yml, .env.example, README.md, scripts, proxy and plugin configs, stackwright.json. By default returns the summary (services, skill packs, proxy, estimatedMemoryMB: what it needs; memoryLimitMB: the worst case) and the list of files with their size and sha256; send `files` (paths, or ["*"] for all) to get those files\' content as embedded resources (uri stackwright://stacks/<name>/<path>). With format "tar" returns the .tar.gz (files under <name>/) as one base64 blob resource. Conflicting services are refused with CONFLICT. Output is deterministic: the same request gives the same bytes, so asking again for other files gives the same stack.',
    bucket: 'generate',
    inputSchema: generateSchema,
    call: async (args, engine) => {
      const { files: wanted, cursor: sentCursor, ...request } = args;
      const { files: asked, cursor } = checkArgs({ files: wanted, cursor: sentCursor }, { files: { type: 'strings' }, cursor: PAGING_ARGS.cursor });
      if (asked && request.format === 'tar') throw validationError('the arguments are invalid', ['files picks files to return as text; with format "tar" every file is in the archive: send one or the other']);
      const { bundle, tar } = await generateStack(engine.generator(), engine.generations, request);
      const paths = Object.keys(bundle.files);
      const chosen = asked?.includes('*') ? paths : asked ?? [];
      const missing = chosen.filter((f) => !(f in bundle.files));
      if (missing.length) {
        throw validationError('the arguments are invalid', missing.map((f) => `files: the stack has no file "${f}"${didYouMean(f, paths)}; its files are ${paths.join(', ')}`));
      }
      const files = paths.map((path) => ({ path, bytes: Buffer.byteLength(bundle.files[path]), sha256: fileHash(bundle.files[path]) }));
      // the list in pages that fit FILE_LIST_BYTES, bound to this request (its fields in any order) and catalogue
      const listed = page(files, {
        tool: 'generate_stack', filters: Object.fromEntries(Object.entries(request).sort(([a], [b]) => a.localeCompare(b))), revision: engine.catalogue().revision, cursor,
        limit: (offset) => filesThatFit(files, offset),
      });
      const resources = tar
        ? [{ type: 'resource' as const, resource: { uri: `stackwright://stacks/${bundle.name}.tar.gz`, mimeType: 'application/gzip', blob: tar.toString('base64') } }]
        : chosen.map((file) => ({ type: 'resource' as const, resource: { uri: `stackwright://stacks/${bundle.name}/${file}`, mimeType: mimeOf(file), text: bundle.files[file] } }));
      const offset = files.indexOf(listed.items[0]);
      return {
        // the text is a summary a person or agent reads, not the structured copy: with every file's
        // sha256 twice the answer would double (the hashes are in stackwright.json too)
        content: [{ type: 'text', text: generateSummary(bundle, files, { offset, items: listed.items, nextCursor: listed.nextCursor }, chosen.length, Boolean(tar)) }, ...resources],
        structuredContent: { name: bundle.name, summary: bundle.summary, totalFiles: files.length, files: listed.items, ...(listed.nextCursor ? { nextCursor: listed.nextCursor } : {}) },
      };
    },
  },
  {
    name: 'explain_error',
    title: 'Explain an error, warning or loader rule',
    description: 'Explains a code returned by the service and what to do about it: an API error code (VALIDATION_ERROR, CONFLICT, RATE_LIMITED, ...), a warning code (GPU_REQUIRED, PLATFORM_UNSUPPORTED, ...) or a catalogue loader rule id (env.ref, image.latest, ...), with the row of docs/errors.md. Send `message` (one entry of details.errors) for advice on that sentence.',
    bucket: 'read',
    inputSchema: () => ({
      type: 'object',
      properties: {
        code: { type: 'string', maxLength: 64, description: 'an error code, warning code or loader rule id' },
        message: { type: 'string', maxLength: 2000, description: 'one problem sentence from details.errors' },
      },
      additionalProperties: false,
    }),
    call: (args) => json(explain(args)),
  },
];

/**
 * What one page of generate_stack's file list may take, counting each file's line of text and its entry in
 * structuredContent. With the summary around it, the answer stays near 8 KB however many files a stack
 * has (test/mcp/mcp.test.ts holds the largest request the API accepts under 12 KB): a larger stack has
 * more pages, not a larger answer.
 */
const FILE_LIST_BYTES = 7 * 1024;

/** How many files from `offset` fit one page (at least one, so paging always moves on). */
function filesThatFit(files: { path: string; bytes: number; sha256: string }[], offset: number): number {
  let used = 0;
  let count = 0;
  for (let i = offset; i < files.length; i++) {
    const f = files[i];
    // its line of text, and its entry: {"path":"","bytes":,"sha256":""}, (45 bytes around the values)
    used += Buffer.byteLength(f.path) * 2 + String(f.bytes).length * 2 + f.sha256.length + 48;
    if (used > FILE_LIST_BYTES && count > 0) break;
    count++;
  }
  return count;
}

/** generate_stack's text: the stack in a sentence, one page of its files with their sizes, and how to get the rest. */
function generateSummary(bundle: Bundle, files: { path: string; bytes: number }[], listed: { offset: number; items: { path: string; bytes: number }[]; nextCursor?: string }, sent: number, tar: boolean): string {
  const s = bundle.summary;
  const total = files.reduce((sum, f) => sum + f.bytes, 0);
  const first = listed.offset + 1;
  const last = listed.offset + listed.items.length;
  const range = first === 1 && last === files.length ? '' : `; files ${first} to ${last} here`;
  return [
    `Stack "${bundle.name}": ${s.services} services, ${s.skills} skill packs, proxy ${s.proxy}; memory: needs about ${s.estimatedMemoryMB} MB (the parts' minimums), at most ${s.memoryLimitMB} MB (their limits).`,
    `${files.length} files, ${total} bytes${range} (path and bytes; sha256 of each in structuredContent.files and in stackwright.json):`,
    ...listed.items.map((f) => `${f.path} ${f.bytes}`),
    ...(listed.nextCursor ? [`More files: call generate_stack again with the same request and cursor: "${listed.nextCursor}" (structuredContent.nextCursor).`] : []),
    tar ? 'The .tar.gz follows as a blob resource (every file under the folder of the stack name).'
      : sent ? `The content of ${sent} file(s) follows as resources.` : 'Call generate_stack again with the same request and files: ["<path>", ...] (or ["*"]) for content: the same request gives the same files.',
    'Start it with: sh scripts/start.sh (README.md explains the rest).',
  ].join('\n');
}

function mimeOf(file: string): string {
  if (file.endsWith('.yml') || file.endsWith('.yaml')) return 'application/yaml';
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.md')) return 'text/markdown';
  if (file.endsWith('.sh')) return 'application/x-sh';
  return 'text/plain';
}

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/**
 * A call of a tool this server does not have: a protocol error, not a tool result (MCP 2025-06-18,
 * server/tools "Error Handling": unknown tools are JSON-RPC errors, -32602 Invalid params). Thrown as a
 * plain Error with a numeric code, the SDK sends `code`, `message` and `data` as they are (McpError would
 * put "MCP error -32602:" in front of the message).
 */
function unknownTool(name: string): Error {
  const tools = [...BY_NAME.keys()];
  return Object.assign(new Error(`Unknown tool: ${name}${didYouMean(name, tools)}; the tools are ${tools.join(', ')} (tools/list describes them)`), {
    code: ErrorCode.InvalidParams,
    data: { tool: name, tools },
  });
}

/** The rate-limit bucket of a tool call (a tool not known counts as a read: it is refused without work). */
export function toolBucket(name: unknown): BucketName {
  return (typeof name === 'string' && BY_NAME.get(name)?.bucket) || 'read';
}

const INSTRUCTIONS = 'Stackwright generates Docker Compose stacks for AI-agent frameworks. Typical flow: list_presets or list_services (search with text/category) and list_skill_packs to pick ids (lists are compact and paged: pass nextCursor as cursor for more, detail: true or get_service for full entries); validate_stack to check the selection (fix every entry of a VALIDATION_ERROR, read the warnings); generate_stack with a name lists the files, with files: [...] (or ["*"]) for their content, or format "tar" for one archive. explain_error explains any code. A RATE_LIMITED result says in how many seconds to call again.';

/**
 * A protocol server with the tools, reading the engine at every call (one per HTTP request, or one for
 * stdio). `refusals` holds the tool calls of this request the transport refused (a spent rate-limit
 * bucket), by JSON-RPC id: each is answered as a tool error, so the agent reads why and when to retry.
 */
export function createMcpServer(engine: McpEngine, refusals?: ReadonlyMap<string | number, ApiError>): Server {
  const server = new Server({ name: 'stackwright', title: 'Stackwright', version: engine.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => {
    const catalogue = engine.catalogue();
    return {
      tools: TOOLS.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema(catalogue),
        annotations: t.bucket === 'read' ? { title: t.title, ...READ_ONLY } : { title: t.title, readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      })),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const refusal = refusals?.get(extra.requestId);
    if (refusal) return toolError(refusal);
    const tool = BY_NAME.get(request.params.name);
    if (!tool) throw unknownTool(request.params.name);
    try {
      return await tool.call(request.params.arguments ?? {}, engine);
    } catch (e) {
      if (e instanceof ApiError) return toolError(e);
      engine.log.error({ err: e, tool: tool.name }, `unexpected error in MCP tool ${tool.name}`);
      return toolError(new ApiError('INTERNAL_ERROR', 'unexpected server error; it has been logged'));
    }
  });
  return server;
}
