// A catalogue reload swaps the engine's snapshot (catalogue and generator): the MCP tools and the page read
// it at each request, so the next call sees the new catalogue without a restart.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readConfig } from '../../src/config.js';
import { LiveEngine } from '../../src/live/live-engine.js';
import { ApiKeys } from '../../src/http/auth.js';
import { MemoryRateLimitStore, RateLimiter } from '../../src/http/rate-limit.js';
import type { AppDeps } from '../../src/app-deps.js';
import { createServer } from '../../src/server.js';
import { writeCatalogue } from '../support/fixture.js';
import { KEY, shippedCatalogue } from '../support/server.js';

test('the MCP tools and the page follow a reloaded catalogue', async () => {
  const config = readConfig({});
  const shipped = shippedCatalogue();
  const dirs = writeCatalogue();
  const engine = new LiveEngine(shipped, config, { plugins: dirs.plugins, catalogue: dirs.catalogue });
  const deps: AppDeps = {
    config, engine, keys: new ApiKeys([KEY]), rateLimiter: new RateLimiter(config.rateLimits, new MemoryRateLimitStore()),
    version: '1.0.0', startedAt: Date.now(),
  };
  const server = createServer(deps);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new Client({ name: 'reload-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }));
  const presets = async () => ((await client.callTool({ name: 'list_presets', arguments: { limit: 100 } })).structuredContent as { presets: { id: string }[] }).presets.map((p) => p.id);
  const categories = async () => /data-categories="([^"]*)"/.exec(await (await fetch(`${url}/`)).text())![1].match(/&#34;id&#34;/g)!.length;
  try {
    assert.ok((await presets()).includes('local-ai'));
    assert.equal(await categories(), shipped.categories.size);

    assert.equal(engine.reload('test').ok, true);

    assert.deepEqual(await presets(), ['small']);
    assert.equal(await categories(), 2);
    const validated = (await client.callTool({ name: 'validate_stack', arguments: { preset: 'small' } })).structuredContent as { resolvedServices: string[] };
    assert.deepEqual(validated.resolvedServices, ['fw', 'alpha', 'beta']);
    const { tools } = await client.listTools();
    const category = (tools.find((t) => t.name === 'list_services')!.inputSchema.properties as Record<string, { enum?: string[] }>).category;
    assert.deepEqual(category.enum, ['database', 'search']);
  } finally {
    await client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
