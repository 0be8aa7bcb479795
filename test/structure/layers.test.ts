// The layers of src/ (docs/architecture.md): the doors (the HTTP server, the MCP tools, the CLI, the page)
// call the use cases (src/usecases/), which call the engine (the loader, the model, the emitters, the
// bundle, the caches, the pipeline). The HTTP door's own parts (src/routes/, src/http/) are imported only
// by that door, so the MCP tools and the CLI reach the engine exactly as the routes do, not through them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importGraph } from './imports.js';

/** The HTTP server and what it owns: the routes, the transport, /mcp over HTTP, the request log and metrics. */
const HTTP_DOOR = ['server.ts', 'serve.ts', 'app-deps.ts', 'main.ts', 'routes/', 'http/', 'mcp/http.ts', 'observability/', 'web/'];
/** Imports of the HTTP door's parts from outside it, each with the reason it is allowed. */
const ALLOWED: Record<string, string> = {
  // the server's settings are read (and refused at start) with the door's own parsers, so a key or a
  // proxy address means the same in the settings as on a request
  'config.ts → http/auth.ts': 'API key syntax',
  'config.ts → http/client-address.ts': 'trusted proxy entries',
};
const DOORS = [...HTTP_DOOR, 'mcp/', 'cli/'];
const USE_CASES = ['usecases/'];
const ENGINE = ['catalogue/', 'model/', 'emit/', 'bundle/', 'cache/', 'pipeline/', 'live/'];

const inside = (file: string, parts: readonly string[]) => parts.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

/** Every import that crosses a layer the wrong way, as "from → to: rule". */
function layerViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const edge = `${from} → ${to}`;
      if (inside(to, ['routes/', 'http/']) && !inside(from, HTTP_DOOR) && !(edge in ALLOWED)) out.push(`${edge}: src/routes/ and src/http/ belong to the HTTP server; call src/usecases/`);
      if (inside(from, USE_CASES) && inside(to, DOORS)) out.push(`${edge}: a use case imports no door`);
      if (inside(from, ENGINE) && inside(to, [...DOORS, ...USE_CASES])) out.push(`${edge}: the engine imports no door and no use case`);
    }
  }
  return out.sort();
}

test('the doors reach the engine through the use cases; routes/ and http/ only from the HTTP server', () => {
  const violations = layerViolations(importGraph());
  assert.deepEqual(violations, [], `imports across the layers:\n${violations.map((v) => `  ${v}`).join('\n')}`);
});

test('every allowed exception is still an import (a stale one would hide a new one)', () => {
  const graph = importGraph();
  for (const edge of Object.keys(ALLOWED)) {
    const [from, to] = edge.split(' → ');
    assert.ok(graph.get(from)?.includes(to), `${edge} is allowed but no longer imported: remove it from ALLOWED`);
  }
});

test('the layer check finds each kind of crossing', () => {
  const graph = new Map([
    ['mcp/tools.ts', ['routes/write-routes.ts', 'usecases/generate.ts']],
    ['cli/engine.ts', ['http/work-queue.ts']],
    ['usecases/generate.ts', ['cli/output.ts', 'pipeline/generate.ts']],
    ['model/resolve.ts', ['usecases/list.ts']],
    ['server.ts', ['routes/write-routes.ts', 'http/body.ts']],
    ['mcp/http.ts', ['http/body.ts']],
    ['config.ts', ['http/auth.ts']],
  ]);
  assert.deepEqual(layerViolations(graph), [
    'cli/engine.ts → http/work-queue.ts: src/routes/ and src/http/ belong to the HTTP server; call src/usecases/',
    'mcp/tools.ts → routes/write-routes.ts: src/routes/ and src/http/ belong to the HTTP server; call src/usecases/',
    'model/resolve.ts → usecases/list.ts: the engine imports no door and no use case',
    'usecases/generate.ts → cli/output.ts: a use case imports no door',
  ]);
});
