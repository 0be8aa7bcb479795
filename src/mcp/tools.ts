// The MCP tools: a thin door onto the same engine as the HTTP API. Every tool reads the catalogue and
// the generator through `McpEngine` at call time (a hot reload swaps them) and answers through the
// functions the routes use: views.ts for catalogue entries, the service filters of catalogue-routes.ts,
// validateStack/generateStack of write-routes.ts. Errors are the API's ApiError, returned as a tool
// error carrying the same { code, message, details } as the HTTP envelope.
import fs from 'node:fs';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue, SkillPackPlugin } from '../catalogue/types.js';
import { LOAD_RULES, didYouMean } from '../catalogue/problems.js';
import { REPO_ROOT } from '../config.js';
import type { Generator } from '../engine/generate.js';
import { API_ERRORS, ApiError, WARNINGS, validationError } from '../errors.js';
import type { BucketName } from '../http/rate-limit.js';
import type { WorkQueue } from '../http/work-queue.js';
import { filteredServiceIds, serviceFilterErrors } from '../routes/catalogue-routes.js';
import { frameworkView, presetDetailView, presetListView, proxyView, serviceView, skillPackView } from '../routes/views.js';
import { generateStack, validateStack } from '../routes/write-routes.js';
import { schemaDocument } from '../schemas.js';

/** What the tools need, read at every call. */
export interface McpEngine {
  catalogue(): Catalogue;
  generator(): Generator;
  /** the server's bound on generations in flight (shared with POST /api/v1/generate) */
  generations: WorkQueue;
  version: string;
}

type Args = Record<string, unknown>;
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

const MATURITIES = ['stable', 'beta', 'experimental'];
const ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
/** The input of a tool that takes no arguments. */
const NO_ARGUMENTS = (): Tool['inputSchema'] => ({ type: 'object', properties: {}, additionalProperties: false });

/** A tool without arguments that answers a view of the catalogue in force. */
function catalogueView(view: (catalogue: Catalogue) => unknown): Pick<ToolDef, 'inputSchema' | 'call'> {
  return {
    inputSchema: NO_ARGUMENTS,
    call: (args, engine) => {
      checkArgs(args, {});
      return json(view(engine.catalogue()));
    },
  };
}

/** Whether a skill pack needs the service (required) or can use it (optional). */
const packNeeds = (p: SkillPackPlugin, service: string) => p.manifest.requiredServices.includes(service);
const packCanUse = (p: SkillPackPlugin, service: string) => (p.manifest.optionalServices ?? []).includes(service);
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A JSON result: the data as text (for every client) and as structured content. */
function json(data: unknown): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data, null, 2) }], structuredContent: data as Record<string, unknown> };
}

/** An ApiError as a tool error: the same code, message and details as the HTTP envelope. */
export function toolError(err: ApiError): ToolResult {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  const hint = err.code === 'VALIDATION_ERROR' || err.code === 'CONFLICT' ? ' (call explain_error with the code or one of the details for what to do)' : '';
  return { isError: true, content: [{ type: 'text', text: `${err.code}: ${err.message}${hint}\n${JSON.stringify({ error }, null, 2)}` }], structuredContent: { error } };
}

/** Checks a tool's plain arguments: known names, strings where strings are expected. */
function checkArgs(args: Args, allowed: Record<string, 'string' | 'required'>): Record<string, string | undefined> {
  const errors: string[] = [];
  const out: Record<string, string | undefined> = {};
  for (const key of Object.keys(args)) if (!(key in allowed)) errors.push(`unknown argument "${key}": the arguments are ${Object.keys(allowed).join(', ') || 'none'}`);
  for (const [key, kind] of Object.entries(allowed)) {
    const value = args[key];
    if (value === undefined) {
      if (kind === 'required') errors.push(`${key} is required`);
    } else if (typeof value !== 'string') errors.push(`${key} must be a string`);
    else out[key] = value;
  }
  if (errors.length) throw validationError('the arguments are invalid', errors);
  return out;
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

const EXPLAIN_SOURCES = (() => {
  let rows: Map<string, string> | undefined;
  /** The rows of docs/errors.md by code (the first column naming the code in backticks). */
  return () => {
    if (rows) return rows;
    rows = new Map();
    let text = '';
    try { text = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'errors.md'), 'utf8'); } catch { /* the source tables still answer */ }
    for (const line of text.split('\n')) {
      if (!line.startsWith('|')) continue;
      const cells = line.split('|').slice(1, -1).map((c) => c.trim());
      const code = cells.map((c) => /^`([^`]+)`$/.exec(c)?.[1]).find(Boolean);
      if (code) rows.set(code, [...(rows.get(code) ? [rows.get(code)!] : []), cells.join(' | ')].join('\n'));
    }
    return rows;
  };
})();

/** What a client should do about each API error code and warning. */
const ADVICE: Record<string, string> = {
  VALIDATION_ERROR: 'Read details.errors: each entry names a field and the rule it breaks, or an unknown id with the nearest existing id. Fix every entry, then call validate_stack again. Ids come from list_services, list_skill_packs, list_presets, list_frameworks_and_proxies.',
  UNAUTHORIZED: 'Send Authorization: Bearer <key> with a key configured in STACK_API_KEY (the same key as the HTTP API).',
  NOT_FOUND: 'The id does not exist; the message suggests the nearest one. List the valid ids with the list_* tools.',
  CONFLICT: 'Two selected services overlap in purpose (details.conflicts lists the pairs). Remove one service of each pair, then generate again; validate_stack reports the same pairs as CONFLICT warnings.',
  RATE_LIMITED: 'A rate-limit bucket is spent (read 100, write 20, generate 5 per minute by default); wait the seconds given in Retry-After.',
  SERVICE_UNAVAILABLE: 'Too many generations are queued; wait a second and try again.',
  CONFLICT_WARNING: 'Remove one of the two services before generating: generate refuses the pair with CONFLICT.',
  PRESET_OVERRIDES: 'Send either preset or services/skills: with a preset, the services and skills sent are ignored.',
  GPU_REQUIRED: 'Send "gpu": true (and run the stack on a host with an NVIDIA GPU and the NVIDIA container toolkit), or drop the service.',
  GPU_UNUSED: 'Drop "gpu": true, or add a service that can use a GPU (e.g. a local model server).',
  PLATFORM_UNSUPPORTED: 'Choose the platform the image is published for, or accept emulation (slow) on this host.',
};

/** Known sentences of details.errors and what to do about each. */
const MESSAGE_PATTERNS: [RegExp, (m: RegExpExecArray) => string][] = [
  [/unknown (service|preset|skill pack|framework|proxy|category) "([^"]+)"/, (m) => `"${m[2]}" is not a ${m[1]} id in this catalogue. ${({ service: 'list_services (with text to search)', preset: 'list_presets', 'skill pack': 'list_skill_packs', framework: 'list_frameworks_and_proxies', proxy: 'list_frameworks_and_proxies (or send "none")', category: 'list_categories' } as Record<string, string>)[m[1]]} lists the valid ids; the message names the nearest one when one is close.`],
  [/skill pack "([^"]+)" needs service "([^"]+)"/, (m) => `Add "${m[2]}" to services (skill pack "${m[1]}" uses it), or drop the skill pack. get_service shows what "${m[2]}" is.`],
  [/^name must be/, () => 'name is the Compose project name: 1 to 63 characters of a-z, 0-9, _ and -, starting with a letter or digit, e.g. "my-stack".'],
  [/^domain must be/, () => 'domain is a host name such as "agents.example.com" (at least one dot) or "localhost"; omit it to reach services on localhost.'],
  [/^unknown field "([^"]+)"/, (m) => `"${m[1]}" is not a request field: the fields are those of the validate_stack / generate_stack input schema.`],
  [/companion/, () => 'companionFrameworks must not repeat the primary framework or list one framework twice.'],
];

function explain(args: Args): ToolResult {
  const { code, message } = checkArgs(args, { code: 'string', message: 'string' });
  if (!code && !message) throw validationError('the arguments are invalid', ['send code (an error code, a warning code or a loader rule id) or message (one entry of details.errors), or both']);
  const out: Record<string, unknown> = {};
  if (code) {
    const docs = EXPLAIN_SOURCES().get(code) ?? EXPLAIN_SOURCES().get(code.toUpperCase());
    const upper = code.toUpperCase();
    if (upper in API_ERRORS) {
      const e = API_ERRORS[upper as keyof typeof API_ERRORS];
      Object.assign(out, { kind: 'api-error', code: upper, httpStatus: e.status, meaning: e.meaning, whatToDo: ADVICE[upper] });
      if (upper in WARNINGS) out.alsoAWarning = { meaning: WARNINGS[upper as keyof typeof WARNINGS], whatToDo: ADVICE.CONFLICT_WARNING };
    } else if (upper in WARNINGS) {
      Object.assign(out, { kind: 'warning', code: upper, meaning: WARNINGS[upper as keyof typeof WARNINGS], whatToDo: ADVICE[upper] });
    } else if (code in LOAD_RULES) {
      Object.assign(out, { kind: 'loader-rule', code, meaning: LOAD_RULES[code as keyof typeof LOAD_RULES], whatToDo: 'A catalogue (plugin) problem, reported by the loader at start and by npm run lint:plugins: fix the plugin file named in the problem. It concerns the operator of the service, not the request.' });
    } else {
      const all = [...Object.keys(API_ERRORS), ...Object.keys(WARNINGS), ...Object.keys(LOAD_RULES)];
      throw validationError('the arguments are invalid', [`unknown code "${code}"${didYouMean(code, all)}; codes: ${all.join(', ')}`]);
    }
    if (docs) out.documentation = docs;
  }
  if (message) {
    const found = MESSAGE_PATTERNS.map(([re, advise]) => { const m = re.exec(message); return m ? advise(m) : undefined; }).filter(Boolean);
    out.message = message;
    out.messageAdvice = found.length ? found : ['No specific advice for this sentence: it names the field and the rule; fix that field and validate again.'];
  }
  return json(out);
}

function textMatches(query: string, ...fields: (string | undefined | readonly string[])[]): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = fields.flat().filter(Boolean).join(' ').toLowerCase();
  return words.every((w) => haystack.includes(w));
}

export const TOOLS: ToolDef[] = [
  {
    name: 'list_services',
    title: 'List or search companion services',
    description: 'Lists the companion services a stack can hold (databases, vector stores, model servers, observability, ...), as GET /api/v1/services. Filters combine: category (see list_categories), tag, maturity, and text (every word must appear in the id, name, description or tags). Each entry gives id, name, description, category, image, ports, requires (added automatically), conflictsWith (cannot be generated together) and minMemoryMB. Use the ids in validate_stack / generate_stack `services`.',
    bucket: 'read',
    inputSchema: (c) => ({
      type: 'object',
      properties: {
        category: { type: 'string', enum: [...c.categories.keys()], description: 'a category id' },
        tag: { type: 'string', description: 'a tag, e.g. "vector-db"' },
        maturity: { type: 'string', enum: MATURITIES, description: 'stable, beta or experimental' },
        text: { type: 'string', maxLength: 200, description: 'words to search for in id, name, description and tags' },
      },
      additionalProperties: false,
    }),
    call: (args, engine) => {
      const f = checkArgs(args, { category: 'string', tag: 'string', maturity: 'string', text: 'string' });
      const catalogue = engine.catalogue();
      const errors = serviceFilterErrors(catalogue, f);
      if (errors.length) throw validationError('the arguments are invalid', errors);
      const ids = filteredServiceIds(catalogue, f);
      const services = [...catalogue.services.values()]
        .filter((s) => (!ids || ids.has(s.id)) && (!f.text || textMatches(f.text, s.id, s.manifest.name, s.manifest.description, s.manifest.tags ?? [])))
        .map((s) => serviceView(catalogue, s));
      return json({ total: services.length, services });
    },
  },
  {
    name: 'get_service',
    title: 'One companion service',
    description: 'One companion service by id, as GET /api/v1/services/{id}, plus the skill packs that need or can use it. An unknown id is an error naming the nearest id.',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: { id: { type: 'string', pattern: ID_PATTERN, description: 'a service id from list_services' } }, required: ['id'], additionalProperties: false }),
    call: (args, engine) => {
      const { id } = checkArgs(args, { id: 'required' });
      const catalogue = engine.catalogue();
      const s = catalogue.services.get(id!);
      if (!s) throw new ApiError('NOT_FOUND', `service "${id}" does not exist${didYouMean(id!, catalogue.services.keys())}`);
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
    description: 'The categories services are grouped in (id, name, description, and how many services each holds): the values of list_services `category`.',
    bucket: 'read',
    ...catalogueView((catalogue) => ({
      categories: [...catalogue.categories.values()].map((c) => ({ ...c, services: catalogue.servicesByCategory.get(c.id)?.length ?? 0 })),
    })),
  },
  {
    name: 'list_skill_packs',
    title: 'Skill packs',
    description: 'The skill packs (ready-made agent skills), as GET /api/v1/skills: each lists requiredServices (must be in `services` or validation fails), optionalServices (used when present) and its skills. Use the ids in `skills`. Optional `service` keeps the packs that need or can use that service.',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: { service: { type: 'string', pattern: ID_PATTERN, description: 'keep only packs that require or can use this service id' } }, additionalProperties: false }),
    call: (args, engine) => {
      const { service } = checkArgs(args, { service: 'string' });
      const catalogue = engine.catalogue();
      const packs = [...catalogue.skillPacks.values()]
        .filter((p) => !service || packNeeds(p, service) || packCanUse(p, service))
        .map(skillPackView);
      return json({ total: packs.length, skillPacks: packs });
    },
  },
  {
    name: 'list_presets',
    title: 'Presets',
    description: 'Ready-made selections of services and skill packs, as GET /api/v1/presets. With `id`, one preset in detail (service names and categories, skill counts, memory estimate) as GET /api/v1/presets/{name}. Send `preset` to validate_stack / generate_stack to use one (it replaces services and skills).',
    bucket: 'read',
    inputSchema: () => ({ type: 'object', properties: { id: { type: 'string', pattern: ID_PATTERN, description: 'a preset id for the detail form' } }, additionalProperties: false }),
    call: (args, engine) => {
      const { id } = checkArgs(args, { id: 'string' });
      const catalogue = engine.catalogue();
      if (id === undefined) return json({ presets: [...catalogue.presets.values()].map(presetListView) });
      const preset = catalogue.presets.get(id);
      if (!preset) throw new ApiError('NOT_FOUND', `preset "${id}" does not exist${didYouMean(id, catalogue.presets.keys())}`);
      return json(presetDetailView(catalogue, preset));
    },
  },
  {
    name: 'list_frameworks_and_proxies',
    title: 'Agent frameworks and reverse proxies',
    description: 'The agent frameworks (values of primaryFramework and companionFrameworks; `default` marks the one used when primaryFramework is omitted) and the reverse proxies (values of proxy, besides "none"), as GET /api/v1/frameworks and GET /api/v1/proxies.',
    bucket: 'read',
    ...catalogueView((catalogue) => ({
      defaultFramework: catalogue.defaultFramework,
      frameworks: [...catalogue.frameworks.values()].map((f) => frameworkView(catalogue, f)),
      proxies: [...catalogue.proxies.values()].map(proxyView),
    })),
  },
  {
    name: 'validate_stack',
    title: 'Validate a stack selection',
    description: 'Resolves and checks a selection without generating files, exactly as POST /api/v1/validate: returns warnings (CONFLICT, GPU_REQUIRED, GPU_UNUSED, PLATFORM_UNSUPPORTED, PRESET_OVERRIDES), resolvedServices (the framework, required services added, dependency first), resolvedSkills and estimatedMemoryMB. Problems (unknown ids with the nearest id, a skill pack without its service, bad name or domain) come back together as one VALIDATION_ERROR listing every problem. name is optional here. Call this before generate_stack.',
    bucket: 'write',
    inputSchema: () => requestSchema('validate-request'),
    call: (args, engine) => json(validateStack(engine.generator(), args)),
  },
  {
    name: 'generate_stack',
    title: 'Generate the files of a stack',
    description: 'Generates the stack exactly as POST /api/v1/generate (same request fields; name is required): docker-compose.yml, .env.example, README.md, scripts, proxy and plugin configs, stackwright.json. By default returns the file list and every file as an embedded resource (uri stackwright://stacks/<name>/<path>); with format "tar" returns the .tar.gz (files under <name>/) as one base64 blob resource. Conflicting services are refused with CONFLICT. Output is deterministic: the same request gives the same bytes.',
    bucket: 'generate',
    inputSchema: () => requestSchema('generate-request'),
    call: async (args, engine) => {
      const { bundle, tar } = await generateStack(engine.generator(), engine.generations, args);
      const files = Object.keys(bundle.files);
      const summary = { name: bundle.name, summary: bundle.summary, files };
      const intro = `Stack "${bundle.name}": ${bundle.summary.services} services, ${bundle.summary.skills} skill packs, proxy ${bundle.summary.proxy}, about ${bundle.summary.estimatedMemoryMB} MB of memory. Files:\n${files.map((f) => `- ${f}`).join('\n')}\nStart it with: sh scripts/start.sh (README.md explains the rest).`;
      if (tar) {
        return {
          content: [
            { type: 'text', text: intro },
            { type: 'resource', resource: { uri: `stackwright://stacks/${bundle.name}.tar.gz`, mimeType: 'application/gzip', blob: tar.toString('base64') } },
          ],
          structuredContent: summary,
        };
      }
      return {
        content: [
          { type: 'text', text: intro },
          ...Object.entries(bundle.files).map(([file, text]) => ({ type: 'resource' as const, resource: { uri: `stackwright://stacks/${bundle.name}/${file}`, mimeType: mimeOf(file), text } })),
        ],
        structuredContent: summary,
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
    call: (args) => explain(args),
  },
];

function mimeOf(file: string): string {
  if (file.endsWith('.yml') || file.endsWith('.yaml')) return 'application/yaml';
  if (file.endsWith('.json')) return 'application/json';
  if (file.endsWith('.md')) return 'text/markdown';
  if (file.endsWith('.sh')) return 'application/x-sh';
  return 'text/plain';
}

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** The rate-limit bucket of a tool call (a tool not known counts as a read: it is refused without work). */
export function toolBucket(name: unknown): BucketName {
  return (typeof name === 'string' && BY_NAME.get(name)?.bucket) || 'read';
}

const INSTRUCTIONS = 'Stackwright generates Docker Compose stacks for AI-agent frameworks. Typical flow: list_presets or list_services (search with text/category) and list_skill_packs to pick ids; validate_stack to check the selection (fix every entry of a VALIDATION_ERROR, read the warnings); generate_stack with a name to get the files (or format "tar" for one archive). explain_error explains any code.';

/** A protocol server with the tools, reading the engine at every call (one per HTTP request, or one for stdio). */
export function createMcpServer(engine: McpEngine): Server {
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
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = BY_NAME.get(request.params.name);
    if (!tool) {
      return toolError(new ApiError('NOT_FOUND', `no tool "${request.params.name}"${didYouMean(request.params.name, BY_NAME.keys())}; the tools are ${[...BY_NAME.keys()].join(', ')}`));
    }
    try {
      return await tool.call(request.params.arguments ?? {}, engine);
    } catch (e) {
      if (e instanceof ApiError) return toolError(e);
      console.error(`unexpected error in MCP tool ${tool.name}:`, e);
      return toolError(new ApiError('INTERNAL_ERROR', 'unexpected server error; it has been logged'));
    }
  });
  return server;
}
