// The MCP door, through the SDK's own Client over Streamable HTTP (/mcp on the real server) and over
// stdio (a child process): the tools, their errors, byte-identity with the HTTP API, auth and limits.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { REPO_ROOT } from '../../src/config.js';
import { apiError, KEY, okData, startServer, type TestServer } from '../support/server.js';

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

function toolError(result: Result, code: string): { code: string; message: string; details?: any } {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`);
  const error = (result.structuredContent as any).error;
  assert.equal(error.code, code);
  assert.match((result.content as Content[])[0].text!, new RegExp(`^${code}: `));
  return error;
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

  test('list_services equals GET /api/v1/services, filtered and searched', async () => {
    const all = structured(await client.callTool({ name: 'list_services', arguments: {} }));
    const http = await okData(await server.get('/api/v1/services'));
    assert.deepEqual(all, http);
    const vector = structured(await client.callTool({ name: 'list_services', arguments: { tag: 'vector-db' } }));
    assert.deepEqual(vector, await okData(await server.get('/api/v1/services?tag=vector-db')));
    const searched = structured(await client.callTool({ name: 'list_services', arguments: { text: 'qdrant' } }));
    assert.ok(searched.services.some((s: { id: string }) => s.id === 'qdrant'));
    assert.ok(searched.total < all.total);
    const error = toolError(await client.callTool({ name: 'list_services', arguments: { category: 'vectr-db', maturity: 'gold' } }), 'VALIDATION_ERROR');
    assert.equal(error.details.errors.length, 2);
  });

  test('get_service, list_categories, list_skill_packs, list_presets, list_frameworks_and_proxies', async () => {
    const qdrant = structured(await client.callTool({ name: 'get_service', arguments: { id: 'qdrant' } }));
    const http = await okData(await server.get('/api/v1/services/qdrant'));
    assert.deepEqual({ ...qdrant, skillPacksRequiring: undefined, skillPacksUsing: undefined }, { ...http, skillPacksRequiring: undefined, skillPacksUsing: undefined });
    assert.ok(qdrant.skillPacksRequiring.includes('rag-memory'));
    const missing = toolError(await client.callTool({ name: 'get_service', arguments: { id: 'qdrnt' } }), 'NOT_FOUND');
    assert.match(missing.message, /did you mean "qdrant"/);

    const categories = structured(await client.callTool({ name: 'list_categories', arguments: {} }));
    assert.ok(categories.categories.length > 10);
    assert.equal(categories.categories.reduce((n: number, c: { services: number }) => n + c.services, 0), (await okData(await server.get('/api/v1/services'))).total);

    const packs = structured(await client.callTool({ name: 'list_skill_packs', arguments: {} }));
    assert.deepEqual(packs, await okData(await server.get('/api/v1/skills')));
    const forQdrant = structured(await client.callTool({ name: 'list_skill_packs', arguments: { service: 'qdrant' } }));
    assert.ok(forQdrant.skillPacks.length > 0 && forQdrant.skillPacks.length < packs.skillPacks.length);

    assert.deepEqual(structured(await client.callTool({ name: 'list_presets', arguments: {} })), await okData(await server.get('/api/v1/presets')));
    assert.deepEqual(structured(await client.callTool({ name: 'list_presets', arguments: { id: 'local-ai' } })), await okData(await server.get('/api/v1/presets/local-ai')));
    toolError(await client.callTool({ name: 'list_presets', arguments: { id: 'nope' } }), 'NOT_FOUND');

    const fp = structured(await client.callTool({ name: 'list_frameworks_and_proxies', arguments: {} }));
    assert.deepEqual(fp.frameworks, (await okData(await server.get('/api/v1/frameworks'))).frameworks);
    assert.deepEqual(fp.proxies, (await okData(await server.get('/api/v1/proxies'))).proxies);
    assert.equal(fp.defaultFramework, 'openclaw');
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

  test('generate_stack returns the files byte-identical to POST /api/v1/generate, and the same tar', async () => {
    const request = { name: 'mcp-stack', preset: 'research-assistant', proxy: 'caddy', domain: 'agents.example.com' };
    const result = await client.callTool({ name: 'generate_stack', arguments: request });
    const bundle = await okData(await server.post('/api/v1/generate', request));
    const content = result.content as Content[];
    assert.equal(content[0].type, 'text');
    const resources = content.filter((c) => c.type === 'resource').map((c) => c.resource!);
    assert.deepEqual(resources.map((r) => r.uri), Object.keys(bundle.files).map((f) => `stackwright://stacks/mcp-stack/${f}`));
    for (const r of resources) {
      const file = r.uri.slice('stackwright://stacks/mcp-stack/'.length);
      assert.ok(Buffer.from(r.text!).equals(Buffer.from(bundle.files[file])), `${file} is byte-identical`);
    }
    assert.deepEqual(structured(result).files, Object.keys(bundle.files));
    assert.deepEqual(structured(result).summary, bundle.summary);

    const tarResult = await client.callTool({ name: 'generate_stack', arguments: { ...request, format: 'tar' } });
    const blob = (tarResult.content as Content[]).find((c) => c.type === 'resource')!.resource!;
    assert.equal(blob.mimeType, 'application/gzip');
    assert.equal(blob.uri, 'stackwright://stacks/mcp-stack.tar.gz');
    const tar = Buffer.from(await (await server.post('/api/v1/generate', { ...request, format: 'tar' })).arrayBuffer());
    assert.ok(Buffer.from(blob.blob!, 'base64').equals(tar), 'the tar is byte-identical');
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
    const unknown = toolError(await client.callTool({ name: 'explain_error', arguments: { code: 'CONFLICTT' } }), 'VALIDATION_ERROR');
    assert.match(unknown.details.errors[0], /did you mean "CONFLICT"/);
    toolError(await client.callTool({ name: 'explain_error', arguments: {} }), 'VALIDATION_ERROR');
    toolError(await client.callTool({ name: 'no_such_tool', arguments: {} }), 'NOT_FOUND');
  });
});

describe('the /mcp endpoint', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const post = (headers: Record<string, string>) => fetch(`${server.url}/mcp`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize),
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

  test('tool calls spend the buckets of the matching API operations', async () => {
    const limited = await startServer({ STACK_RATE_LIMIT_GENERATE: '1', STACK_RATE_LIMIT_WRITE: '2' });
    const c = await httpClient(limited.url);
    try {
      // one generate through the API spends the generate bucket, so the MCP call is refused
      await okData(await limited.post('/api/v1/generate', { name: 'one' }));
      await assert.rejects(c.callTool({ name: 'generate_stack', arguments: { name: 'two' } }), /RATE_LIMITED/);
      structured(await c.callTool({ name: 'validate_stack', arguments: {} }));
      structured(await c.callTool({ name: 'validate_stack', arguments: {} }));
      await apiError(await limited.post('/api/v1/validate', {}), 429, 'RATE_LIMITED');
      // reads are a separate bucket
      structured(await c.callTool({ name: 'list_presets', arguments: {} }));
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
      const result = await stdio.callTool({ name: 'generate_stack', arguments: request });
      const bundle = await okData(await server.post('/api/v1/generate', request));
      const files = Object.fromEntries((result.content as Content[]).filter((c) => c.type === 'resource')
        .map((c) => [c.resource!.uri.slice('stackwright://stacks/stdio-stack/'.length), c.resource!.text]));
      assert.deepEqual(files, bundle.files);
    } finally {
      await stdio.close();
    }
  });
});
