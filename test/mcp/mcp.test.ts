// The MCP door, through the SDK's own Client over Streamable HTTP (/mcp on the real server) and over
// stdio (a child process): the tools, their errors, byte-identity with the HTTP API, auth and limits,
// paging over both transports, and every default answer under 16 KB over the real catalogue.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '../../src/config.js';
import { apiError, conflictFreeGroups, KEY, okData, shippedCatalogue, startServer, type TestServer } from '../support/server.js';

const TOOL_NAMES = ['explain_error', 'generate_stack', 'get_service', 'list_categories', 'list_frameworks_and_proxies', 'list_presets', 'list_services', 'list_skill_packs', 'validate_stack'];

type Result = Awaited<ReturnType<Client['callTool']>>;
type Content = { type: string; text?: string; resource?: { uri: string; mimeType?: string; text?: string; blob?: string } };

async function httpClient(url: string, key = KEY): Promise<Client> {
  const client = new Client({ name: 'stackwright-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

function structured(result: Result): any {
  assert.ok(!result.isError, `tool error: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** A result that is not an error (returned whole, to be measured). */
function structuredResult(result: Result): Result {
  structured(result);
  return result;
}

function toolError(result: Result, code: string): { code: string; message: string; details?: any } {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`);
  const error = (result.structuredContent as any).error;
  assert.equal(error.code, code);
  assert.match((result.content as Content[])[0].text!, new RegExp(`^${code}: `));
  return error;
}

/** What an agent's context must hold at most for one default answer. */
const ANSWER_BUDGET = 16 * 1024;
const bytesOf = (result: unknown) => Buffer.byteLength(JSON.stringify(result));

/** Every entry of a paged list tool, page by page (checking each page's total and cursor). */
async function allPages(c: Client, name: string, key: string, args: Record<string, unknown> = {}): Promise<{ total: number; entries: any[]; pages: number }> {
  const entries: any[] = [];
  let cursor: string | undefined;
  let total = -1;
  let pages = 0;
  do {
    const data = structured(await c.callTool({ name, arguments: { ...args, ...(cursor ? { cursor } : {}) } }));
    if (total < 0) total = data.total;
    assert.equal(data.total, total, 'the total is the same on every page');
    entries.push(...data[key]);
    cursor = data.nextCursor;
    pages++;
    assert.ok(pages <= 100, 'paging ends');
  } while (cursor);
  return { total, entries, pages };
}

/** generate_stack's file list, page by page (each page's total checked), and the largest answer met. */
async function allFiles(c: Client, request: Record<string, unknown>): Promise<{ files: any[]; pages: number; largest: number }> {
  const files: any[] = [];
  let cursor: string | undefined;
  let pages = 0;
  let largest = 0;
  do {
    const result = structuredResult(await c.callTool({ name: 'generate_stack', arguments: { ...request, ...(cursor ? { cursor } : {}) } }));
    largest = Math.max(largest, bytesOf(result));
    const data = result.structuredContent as any;
    files.push(...data.files);
    assert.ok(files.length <= data.totalFiles);
    cursor = data.nextCursor;
    if (cursor) assert.ok((result.content as Content[])[0].text!.includes(`cursor: "${cursor}"`), 'the text says how to get the next page');
    pages++;
    assert.ok(pages <= 100, 'paging ends');
  } while (cursor);
  return { files, pages, largest };
}

let server: TestServer;
let client: Client;
before(async () => {
  server = await startServer();
  client = await httpClient(server.url);
});
after(async () => {
  await client.close();
  await server.close();
});

describe('MCP over Streamable HTTP', () => {
  test('lists the tools with descriptions and JSON-Schema inputs taken from schemas/', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
    for (const t of tools) {
      assert.ok((t.description ?? '').length > 80, `${t.name} has a real description`);
      assert.equal(t.inputSchema.type, 'object');
    }
    const generate = tools.find((t) => t.name === 'generate_stack')!;
    assert.deepEqual(generate.inputSchema.required, ['name']);
    const props = generate.inputSchema.properties as Record<string, any>;
    assert.equal(props.name.pattern, '^[a-z0-9][a-z0-9_-]*$');
    assert.deepEqual(props.format.enum, ['json', 'tar']);
    const validate = tools.find((t) => t.name === 'validate_stack')!;
    // the validate schema's references to the generate schema are inlined
    assert.equal((validate.inputSchema.properties as any).platform.enum.length, 2);
    assert.ok(!JSON.stringify(validate.inputSchema).includes('$ref'));
    const list = tools.find((t) => t.name === 'list_services')!;
    assert.ok((list.inputSchema.properties as any).category.enum.includes('vector-db') || (list.inputSchema.properties as any).category.enum.length > 10);
    assert.equal(tools.find((t) => t.name === 'list_services')!.annotations?.readOnlyHint, true);
  });

  test('list_services: compact entries by default, the API records with detail, pages that add up to GET /api/v1/services', async () => {
    const http = await okData(await server.get('/api/v1/services'));
    const first = structured(await client.callTool({ name: 'list_services', arguments: {} }));
    assert.equal(first.total, http.total);
    assert.equal(first.services.length, 25, 'a page of 25 by default');
    assert.ok(first.nextCursor);
    for (const s of first.services) {
      assert.deepEqual(Object.keys(s), ['id', 'name', 'category', 'description']);
      assert.ok(!s.description.includes('\n') && s.description.length <= 140, `${s.id}: one line`);
    }
    const { entries, pages } = await allPages(client, 'list_services', 'services', { detail: true, limit: 100 });
    assert.equal(pages, Math.ceil(http.total / 100));
    assert.deepEqual(entries, http.services, 'every page together is the API list, in its order');

    const vector = await allPages(client, 'list_services', 'services', { tag: 'vector-db', limit: 3 });
    assert.deepEqual(vector.entries.map((s) => s.id), (await okData(await server.get('/api/v1/services?tag=vector-db'))).services.map((s: { id: string }) => s.id));
    const error = toolError(await client.callTool({ name: 'list_services', arguments: { category: 'vectr-db', maturity: 'gold' } }), 'VALIDATION_ERROR');
    assert.equal(error.details.errors.length, 2);
  });

  test('list_services text search ranks the best match first', async () => {
    const postgres = structured(await client.callTool({ name: 'list_services', arguments: { text: 'postgres', limit: 3 } }));
    assert.equal(postgres.services[0].id, 'postgresql');
    assert.ok(postgres.total > 1 && postgres.total < shippedCatalogue().services.size);
    const qdrant = structured(await client.callTool({ name: 'list_services', arguments: { text: 'qdrant' } }));
    assert.equal(qdrant.services[0].id, 'qdrant');
    assert.equal(structured(await client.callTool({ name: 'list_services', arguments: { text: 'no-such-word-anywhere' } })).total, 0);
  });

  test('a cursor is refused when it is not ours, or belongs to other filters', async () => {
    const page = structured(await client.callTool({ name: 'list_services', arguments: { maturity: 'stable', limit: 2 } }));
    const forged = toolError(await client.callTool({ name: 'list_services', arguments: { cursor: 'not-a-cursor' } }), 'VALIDATION_ERROR');
    assert.match(forged.details.errors[0], /cursor is not one this server gave/);
    const other = toolError(await client.callTool({ name: 'list_services', arguments: { maturity: 'beta', cursor: page.nextCursor } }), 'VALIDATION_ERROR');
    assert.match(other.details.errors[0], /cursor belongs to other filters/);
    const skills = toolError(await client.callTool({ name: 'list_skill_packs', arguments: { cursor: page.nextCursor } }), 'VALIDATION_ERROR');
    assert.match(skills.details.errors[0], /cursor belongs to other filters/);
    const limit = toolError(await client.callTool({ name: 'list_services', arguments: { limit: 0, detail: 'yes' } }), 'VALIDATION_ERROR');
    assert.deepEqual(limit.details.errors, ['limit must be from 1 to 100 (got 0)', 'detail must be true or false']);
  });

  test('get_service, list_categories, list_skill_packs, list_presets, list_frameworks_and_proxies', async () => {
    const qdrant = structured(await client.callTool({ name: 'get_service', arguments: { id: 'qdrant' } }));
    const http = await okData(await server.get('/api/v1/services/qdrant'));
    assert.deepEqual({ ...qdrant, skillPacksRequiring: undefined, skillPacksUsing: undefined }, { ...http, skillPacksRequiring: undefined, skillPacksUsing: undefined });
    assert.ok(qdrant.skillPacksRequiring.includes('rag-memory'));
    const missing = toolError(await client.callTool({ name: 'get_service', arguments: { id: 'qdrnt' } }), 'NOT_FOUND');
    assert.match(missing.message, /did you mean "qdrant"/);
    // the start of an id, or a typo in it, names the id; the API's 404 says the same
    for (const [typed, meant] of [['postgre', 'postgresql'], ['postgress', 'postgresql'], ['postgrs', 'postgresql'], ['n8', 'n8n'], ['opensearc', 'opensearch']]) {
      const error = toolError(await client.callTool({ name: 'get_service', arguments: { id: typed } }), 'NOT_FOUND');
      assert.match(error.message, new RegExp(`^service "${typed}" does not exist \\(did you mean "${meant}"\\?\\)`));
      const http = await apiError(await server.get(`/api/v1/services/${typed}`), 404, 'NOT_FOUND');
      assert.match(http.message, new RegExp(`did you mean "${meant}"`));
    }
    assert.doesNotMatch(toolError(await client.callTool({ name: 'get_service', arguments: { id: 'nope' } }), 'NOT_FOUND').message, /did you mean/, 'nothing close, no guess');

    const categories = structured(await client.callTool({ name: 'list_categories', arguments: {} }));
    assert.ok(categories.categories.length > 10);
    assert.deepEqual(Object.keys(categories.categories[0]), ['id', 'name', 'services']);
    assert.equal(categories.categories.reduce((n: number, c: { services: number }) => n + c.services, 0), (await okData(await server.get('/api/v1/services'))).total);
    assert.ok(structured(await client.callTool({ name: 'list_categories', arguments: { detail: true } })).categories.every((c: { description?: string }) => c.description));

    const httpPacks = await okData(await server.get('/api/v1/skills'));
    const packs = await allPages(client, 'list_skill_packs', 'skillPacks', { detail: true });
    assert.deepEqual({ total: packs.total, skillPacks: packs.entries }, httpPacks);
    const compactPack = structured(await client.callTool({ name: 'list_skill_packs', arguments: { limit: 1 } })).skillPacks[0];
    assert.deepEqual(Object.keys(compactPack), ['id', 'name', 'description', 'requiredServices']);
    const forQdrant = structured(await client.callTool({ name: 'list_skill_packs', arguments: { service: 'qdrant' } }));
    assert.ok(forQdrant.skillPacks.length > 0 && forQdrant.total < httpPacks.total);
    const nope = toolError(await client.callTool({ name: 'list_skill_packs', arguments: { service: 'nope' } }), 'NOT_FOUND');
    assert.match(nope.message, /^service "nope" does not exist/);
    assert.match(toolError(await client.callTool({ name: 'list_skill_packs', arguments: { service: 'qdrnt' } }), 'NOT_FOUND').message, /did you mean "qdrant"/);

    const httpPresets = await okData(await server.get('/api/v1/presets'));
    const presets = await allPages(client, 'list_presets', 'presets', { detail: true, limit: 7 });
    assert.deepEqual(presets.entries, httpPresets.presets);
    const compactPreset = structured(await client.callTool({ name: 'list_presets', arguments: { text: 'research' } })).presets[0];
    assert.deepEqual(compactPreset, { id: 'research-assistant', name: compactPreset.name, description: compactPreset.description });
    const detail = structured(await client.callTool({ name: 'list_presets', arguments: { id: 'local-ai' } }));
    assert.deepEqual(detail, await okData(await server.get('/api/v1/presets/local-ai')));
    assert.ok(detail.estimatedMemoryMB < detail.memoryLimitMB, 'what it needs, and the worst case above it');
    toolError(await client.callTool({ name: 'list_presets', arguments: { id: 'nope' } }), 'NOT_FOUND');
    toolError(await client.callTool({ name: 'list_presets', arguments: { id: 'local-ai', limit: 2 } }), 'VALIDATION_ERROR');

    const fp = structured(await client.callTool({ name: 'list_frameworks_and_proxies', arguments: { detail: true } }));
    assert.deepEqual(fp.frameworks, (await okData(await server.get('/api/v1/frameworks'))).frameworks);
    assert.deepEqual(fp.proxies, (await okData(await server.get('/api/v1/proxies'))).proxies);
    assert.equal(fp.defaultFramework, 'openclaw');
    const compact = structured(await client.callTool({ name: 'list_frameworks_and_proxies', arguments: {} }));
    assert.deepEqual(compact.frameworks.map((f: { id: string }) => f.id), fp.frameworks.map((f: { id: string }) => f.id));
    assert.deepEqual(Object.keys(compact.proxies[0]), ['id', 'name', 'description']);
  });

  test('validate_stack answers as POST /api/v1/validate, warnings included', async () => {
    const request = { preset: 'web-agent', gpu: true, services: ['redis'] };
    const result = structured(await client.callTool({ name: 'validate_stack', arguments: request }));
    assert.deepEqual(result, await okData(await server.post('/api/v1/validate', request)));
    assert.deepEqual(result.warnings.map((w: { code: string }) => w.code).sort(), ['GPU_UNUSED', 'PRESET_OVERRIDES']);
  });

  test('a validation error lists the same problems as the HTTP API', async () => {
    const request = { name: 'Bad Name', services: ['qdrnt'], skills: ['rag-memory'], proxy: 'apache' };
    const error = toolError(await client.callTool({ name: 'validate_stack', arguments: request }), 'VALIDATION_ERROR');
    const http = await apiError(await server.post('/api/v1/validate', request), 400, 'VALIDATION_ERROR');
    assert.deepEqual(error, http);
    assert.ok(error.details.errors.length >= 3);
    // generate refuses a conflicting pair as the API does (409 CONFLICT)
    const conflict = toolError(await client.callTool({ name: 'generate_stack', arguments: { name: 'x', services: ['redis', 'valkey'] } }), 'CONFLICT');
    assert.deepEqual(conflict.details.conflicts, [{ services: ['redis', 'valkey'] }]);
  });

  test('generate_stack lists the files with sizes and sha256, and sends the content asked for byte-identical to the API, or the same tar', async () => {
    const request = { name: 'mcp-stack', preset: 'research-assistant', proxy: 'caddy', domain: 'agents.example.com' };
    const bundle = await okData(await server.post('/api/v1/generate', request));
    const listed = await client.callTool({ name: 'generate_stack', arguments: request });
    const data = structured(listed);
    assert.deepEqual(data.summary, bundle.summary);
    assert.equal(data.totalFiles, Object.keys(bundle.files).length);
    assert.deepEqual((await allFiles(client, request)).files, Object.entries(bundle.files as Record<string, string>).map(([file, text]) => ({
      path: file, bytes: Buffer.byteLength(text), sha256: crypto.createHash('sha256').update(text).digest('hex'),
    })));
    const content = listed.content as Content[];
    assert.deepEqual(content.map((c) => c.type), ['text'], 'no file content unless asked for');
    assert.match(content[0].text!, /needs about \d+ MB \(the parts' minimums\), at most \d+ MB \(their limits\)/);
    assert.match(content[0].text!, /^docker-compose\.yml \d+$/m);

    const two = (await client.callTool({ name: 'generate_stack', arguments: { ...request, files: ['README.md', 'docker-compose.yml'] } })).content as Content[];
    assert.deepEqual(two.filter((c) => c.type === 'resource').map((c) => [c.resource!.uri, c.resource!.mimeType]),
      [['stackwright://stacks/mcp-stack/README.md', 'text/markdown'], ['stackwright://stacks/mcp-stack/docker-compose.yml', 'application/yaml']]);

    const all = await client.callTool({ name: 'generate_stack', arguments: { ...request, files: ['*'] } });
    const resources = (all.content as Content[]).filter((c) => c.type === 'resource').map((c) => c.resource!);
    assert.deepEqual(resources.map((r) => r.uri), Object.keys(bundle.files).map((f) => `stackwright://stacks/mcp-stack/${f}`));
    for (const r of resources) {
      const file = r.uri.slice('stackwright://stacks/mcp-stack/'.length);
      assert.ok(Buffer.from(r.text!).equals(Buffer.from(bundle.files[file])), `${file} is byte-identical`);
    }
    const wrong = toolError(await client.callTool({ name: 'generate_stack', arguments: { ...request, files: ['docker-compose.yaml'] } }), 'VALIDATION_ERROR');
    assert.match(wrong.details.errors[0], /no file "docker-compose\.yaml" \(did you mean "docker-compose\.yml"\?\)/);
    toolError(await client.callTool({ name: 'generate_stack', arguments: { ...request, format: 'tar', files: ['README.md'] } }), 'VALIDATION_ERROR');
    const mistyped = toolError(await client.callTool({ name: 'generate_stack', arguments: { ...request, files: 'README.md' } }), 'VALIDATION_ERROR');
    assert.deepEqual(mistyped.details.errors, ['files must be an array of strings']);

    const tarResult = await client.callTool({ name: 'generate_stack', arguments: { ...request, format: 'tar' } });
    const blob = (tarResult.content as Content[]).find((c) => c.type === 'resource')!.resource!;
    assert.equal(blob.mimeType, 'application/gzip');
    assert.equal(blob.uri, 'stackwright://stacks/mcp-stack.tar.gz');
    const tar = Buffer.from(await (await server.post('/api/v1/generate', { ...request, format: 'tar' })).arrayBuffer());
    assert.ok(Buffer.from(blob.blob!, 'base64').equals(tar), 'the tar is byte-identical');
  });

  test('every default answer fits 16 KB, over the real catalogue (generate: its largest preset, bare-metal, behind a proxy)', async () => {
    const catalogue = shippedCatalogue();
    const largest = [...catalogue.presets.values()].sort((a, b) => b.manifest.services.length - a.manifest.services.length)[0];
    const calls: [string, Record<string, unknown>][] = [
      ['list_services', {}], ['get_service', { id: 'postgresql' }], ['list_categories', {}], ['list_skill_packs', {}], ['list_presets', {}],
      ['list_presets', { id: largest.id }], ['list_frameworks_and_proxies', {}], ['validate_stack', { preset: largest.id, proxy: 'caddy' }],
      ['generate_stack', { name: 'largest', preset: largest.id, proxy: 'caddy', domain: 'example.com', deploymentType: 'bare-metal' }],
      ['explain_error', { code: 'CONFLICT' }],
    ];
    assert.deepEqual([...new Set(calls.map(([name]) => name))].sort(), TOOL_NAMES, 'every tool is measured');
    const sizes: Record<string, number> = { 'tools/list': bytesOf(await client.listTools()) };
    for (const [name, args] of calls) sizes[`${name} ${JSON.stringify(args)}`] = bytesOf(structuredResult(await client.callTool({ name, arguments: args })));
    for (const [call, bytes] of Object.entries(sizes)) assert.ok(bytes < ANSWER_BUDGET, `${call}: ${bytes} bytes`);
    // no pretty-printing: the text is compact JSON
    const text = ((await client.callTool({ name: 'list_categories', arguments: {} })).content as Content[])[0].text!;
    assert.ok(!text.includes('\n'), 'compact JSON');
  });

  test('generate_stack at the largest request the API accepts answers within 12 KB, its file list in pages that add up to the bundle', async () => {
    const catalogue = shippedCatalogue();
    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'schemas/generate-request.schema.json'), 'utf8'));
    // as many services as a request may name without a conflicting pair, every skill pack they allow, every framework
    const services = conflictFreeGroups(catalogue).sort((a, b) => b.length - a.length)[0].slice(0, schema.properties.services.maxItems);
    const chosen = new Set(services);
    const skills = [...catalogue.skillPacks.values()].filter((p) => p.manifest.requiredServices.every((r) => chosen.has(r))).map((p) => p.id);
    const [primaryFramework, ...companionFrameworks] = [...catalogue.frameworks.keys()];
    const largest = { name: 'l'.repeat(schema.properties.name.maxLength), services, skills, primaryFramework, companionFrameworks, proxy: 'caddy', domain: 'agents.example.com' };
    assert.ok(services.length >= 150 && skills.length >= 30, `${services.length} services, ${skills.length} skill packs`);
    const MARGIN_BUDGET = 12 * 1024;
    for (const deploymentType of ['docker', 'bare-metal']) {
      const request = { ...largest, deploymentType };
      const bundle = await okData(await server.post('/api/v1/generate', request));
      const paths = Object.keys(bundle.files);
      assert.ok(paths.length > 150, `${deploymentType}: ${paths.length} files`);
      const { files, pages, largest: bytes } = await allFiles(client, request);
      assert.ok(bytes <= MARGIN_BUDGET, `${deploymentType}: the largest answer is ${bytes} bytes`);
      assert.ok(pages > 1, 'a stack this large is listed in pages');
      assert.deepEqual(files.map((f) => f.path), paths, 'the pages together list every file once, in order');
      // with files asked for, the same page of the list, and the content
      const both = await client.callTool({ name: 'generate_stack', arguments: { ...request, files: ['docker-compose.yml'] } });
      assert.equal((both.content as Content[])[1].resource!.text, bundle.files['docker-compose.yml']);
    }
    // a cursor belongs to its request: another one (a field changed) is refused with what to do
    const first = structured(await client.callTool({ name: 'generate_stack', arguments: largest }));
    const foreign = toolError(await client.callTool({ name: 'generate_stack', arguments: { ...largest, proxy: 'nginx', cursor: first.nextCursor } }), 'VALIDATION_ERROR');
    assert.match(foreign.details.errors[0], /cursor belongs to other filters/);
    // the same request with its fields in another order keeps its cursor
    const reordered = Object.fromEntries(Object.entries(largest).reverse());
    structured(await client.callTool({ name: 'generate_stack', arguments: { ...reordered, cursor: first.nextCursor } }));
  });

  test('explain_error explains error codes, warnings, loader rules and detail sentences', async () => {
    const conflict = structured(await client.callTool({ name: 'explain_error', arguments: { code: 'CONFLICT' } }));
    assert.equal(conflict.httpStatus, 409);
    assert.match(conflict.documentation, /details.conflicts|conflict/);
    assert.ok(conflict.alsoAWarning);
    const gpu = structured(await client.callTool({ name: 'explain_error', arguments: { code: 'gpu_unused' } }));
    assert.equal(gpu.kind, 'warning');
    const rule = structured(await client.callTool({ name: 'explain_error', arguments: { code: 'image.latest' } }));
    assert.equal(rule.kind, 'loader-rule');
    const sentence = structured(await client.callTool({ name: 'explain_error', arguments: { message: 'skill pack "rag-memory" needs service "qdrant": add it to services' } }));
    assert.match(sentence.messageAdvice[0], /Add "qdrant"/);
    assert.equal(conflict.documentation.split('\n').length, 1, 'the row of the error table only');
    assert.match(conflict.documentation, /^409 \| `CONFLICT`/);
    assert.match(conflict.alsoAWarning.documentation, /^`CONFLICT` \| two selected services/);
    const unknown = toolError(await client.callTool({ name: 'explain_error', arguments: { code: 'CONFLICTT' } }), 'VALIDATION_ERROR');
    assert.match(unknown.details.errors[0], /did you mean "CONFLICT"/);
    const listed = /codes: (.*)$/.exec(unknown.details.errors[0])![1].split(', ');
    assert.equal(listed.filter((c) => c === 'CONFLICT').length, 1, 'each code listed once');
    assert.equal(new Set(listed).size, listed.length);
    toolError(await client.callTool({ name: 'explain_error', arguments: {} }), 'VALIDATION_ERROR');
    // a tool that does not exist is a protocol error, not a tool result (the /mcp endpoint tests below)
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e: any) => e.code === -32602);
  });
});

describe('the /mcp endpoint', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const post = (headers: Record<string, string>) => fetch(`${server.url}/mcp`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize),
  });

  test('an unknown tool is a JSON-RPC error -32602 naming the nearest tool, not a tool result', async () => {
    await assert.rejects(client.callTool({ name: 'get_servic', arguments: { id: 'qdrant' } }), (e: any) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /Unknown tool: get_servic \(did you mean "get_service"\?\); the tools are /);
      assert.deepEqual([...e.data.tools].sort(), TOOL_NAMES);
      return true;
    });
    // on the wire: an error member and no result
    const answer = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'nope', arguments: {} } }),
    });
    const rpc = await answer.json() as any;
    assert.equal(rpc.id, 7);
    assert.equal(rpc.result, undefined);
    assert.equal(rpc.error.code, -32602);
    assert.match(rpc.error.message, /^Unknown tool: nope; the tools are /);
  });

  test('a missing or wrong key is refused with 401, as on the API', async () => {
    const missing = await post({});
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    await apiError(missing, 401, 'UNAUTHORIZED');
    await apiError(await post({ Authorization: 'Bearer not-the-key' }), 401, 'UNAUTHORIZED');
    await assert.rejects(httpClient(server.url, 'wrong-key'), /UNAUTHORIZED|401/);
    const ok = await post({ Authorization: `Bearer ${KEY}` });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).result.serverInfo.name, 'stackwright');
  });

  test('GET and DELETE are 405 (a stateless server: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { Authorization: `Bearer ${KEY}`, Accept: 'text/event-stream' } });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'POST');
    }
  });

  test('tool calls spend the buckets of the matching API operations; a spent bucket is a tool result saying when to retry', async () => {
    const limited = await startServer({ STACK_RATE_LIMIT_GENERATE: '1', STACK_RATE_LIMIT_WRITE: '2', STACK_RATE_LIMIT_READ: '8' });
    const c = await httpClient(limited.url);
    try {
      // one generate through the API spends the generate bucket, so the MCP call is refused, as a tool result
      await okData(await limited.post('/api/v1/generate', { name: 'one' }));
      const refused = await c.callTool({ name: 'generate_stack', arguments: { name: 'two' } });
      const error = toolError(refused, 'RATE_LIMITED');
      assert.equal(error.details.bucket, 'generate');
      assert.ok(Number.isInteger(error.details.retryAfterSeconds) && error.details.retryAfterSeconds >= 1);
      assert.match(error.message, new RegExp(`try again in ${error.details.retryAfterSeconds} s`));
      structured(await c.callTool({ name: 'validate_stack', arguments: {} }));
      structured(await c.callTool({ name: 'validate_stack', arguments: {} }));
      await apiError(await limited.post('/api/v1/validate', {}), 429, 'RATE_LIMITED');
      toolError(await c.callTool({ name: 'validate_stack', arguments: {} }), 'RATE_LIMITED');
      // reads are a separate bucket
      structured(await c.callTool({ name: 'list_presets', arguments: {} }));
      // a message that is not a tool call has no tool result to carry the refusal: the API's 429
      while ((await limited.get('/api/v1/presets', { Authorization: `Bearer ${KEY}` })).status !== 429);
      await assert.rejects(c.listTools(), /429|RATE_LIMITED/);
      toolError(await c.callTool({ name: 'list_presets', arguments: {} }), 'RATE_LIMITED');
    } finally {
      await c.close();
      await limited.close();
    }
  });
});

describe('MCP over stdio', () => {
  test('the same tools and the same files as the HTTP API', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/main.ts'), 'mcp'],
      cwd: REPO_ROOT,
      stderr: 'pipe',
      env: { ...process.env as Record<string, string> },
    });
    const stdio = new Client({ name: 'stackwright-test', version: '1.0.0' });
    await stdio.connect(transport);
    try {
      const { tools } = await stdio.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), TOOL_NAMES);
      const request = { name: 'stdio-stack', services: ['n8n'], skills: ['workflow-automation'] };
      assert.deepEqual(structured(await stdio.callTool({ name: 'validate_stack', arguments: request })), await okData(await server.post('/api/v1/validate', request)));
      const error = toolError(await stdio.callTool({ name: 'validate_stack', arguments: { services: ['n8m'] } }), 'VALIDATION_ERROR');
      assert.match(error.details.errors[0], /did you mean "n8n"/);
      await assert.rejects(stdio.callTool({ name: 'generate', arguments: {} }), (e: any) => e.code === -32602 && /^MCP error -32602: Unknown tool: generate/.test(e.message));
      // paging over stdio: the same pages as over HTTP
      for (const [name, key] of [['list_services', 'services'], ['list_skill_packs', 'skillPacks'], ['list_presets', 'presets']] as const) {
        const overStdio = await allPages(stdio, name, key, { limit: 20 });
        const overHttp = await allPages(client, name, key, { limit: 20 });
        assert.ok(overStdio.pages > 1 || overStdio.total <= 20, `${name} is paged`);
        assert.deepEqual(overStdio, overHttp, name);
        assert.equal(overStdio.entries.length, overStdio.total);
        assert.equal(new Set(overStdio.entries.map((e: { id: string }) => e.id)).size, overStdio.total, `${name}: no entry twice`);
      }
      const result = await stdio.callTool({ name: 'generate_stack', arguments: { ...request, files: ['*'] } });
      const bundle = await okData(await server.post('/api/v1/generate', request));
      const files = Object.fromEntries((result.content as Content[]).filter((c) => c.type === 'resource')
        .map((c) => [c.resource!.uri.slice('stackwright://stacks/stdio-stack/'.length), c.resource!.text]));
      assert.deepEqual(files, bundle.files);
    } finally {
      await stdio.close();
    }
  });
});
