// Starts the real HTTP server on a free loopback port for a test file, with test-sized settings.
import type { AddressInfo } from 'node:net';
import { readConfig, type Config } from '../../src/config.js';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import type { Catalogue } from '../../src/catalogue/types.js';
import { LiveEngine } from '../../src/live/live-engine.js';
import { ApiKeys } from '../../src/http/auth.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from '../../src/http/rate-limit.js';
import { createServer } from '../../src/server.js';

import { KEY, SECOND_KEY } from './keys.js';

export { KEY, SECOND_KEY };

let shipped: Catalogue | undefined;
/** The shipped catalogue, loaded once per test process. */
export function shippedCatalogue(): Catalogue {
  const config = readConfig({});
  shipped ??= loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
  return shipped;
}

export interface TestServer {
  url: string;
  /** the port, for raw sockets (test/support/raw-http.ts) */
  port: number;
  config: Config;
  /** the engine the server answers from (a test may hold a generation to see the queue fill) */
  engine: LiveEngine;
  close(): Promise<void>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export async function startServer(env: Record<string, string> = {}, store?: RateLimitStore): Promise<TestServer> {
  const config = readConfig({
    STACK_RATE_LIMIT_READ: '100000', STACK_RATE_LIMIT_WRITE: '100000', STACK_RATE_LIMIT_GENERATE: '100000', ...env,
  });
  const catalogue = shippedCatalogue();
  const rateLimiter = new RateLimiter(config.rateLimits, store ?? new MemoryRateLimitStore());
  const engine = new LiveEngine(catalogue, config);
  const server = createServer({
    config, keys: new ApiKeys([KEY, SECOND_KEY]), rateLimiter,
    engine, version: '9.8.7', startedAt: Date.now(),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    config,
    engine,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rateLimiter.close();
    },
    get: (path, headers = {}) => fetch(url + path, { headers }),
    post: (path, body, headers = {}) => fetch(url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  };
}

/** The envelope's data of a 200, failing the test with the body otherwise. */
export async function okData<T = Record<string, any>>(res: Response): Promise<T> {
  const body = await res.json() as { ok: boolean; data: T };
  if (res.status !== 200 || body.ok !== true) throw new Error(`expected 200 ok, got ${res.status}: ${JSON.stringify(body)}`);
  return body.data;
}

/** The envelope's error of a failure, checking status and code. */
export async function apiError(res: Response, status: number, code: string): Promise<{ code: string; message: string; details?: any }> {
  const body = await res.json() as { ok: boolean; error: { code: string; message: string; details?: any } };
  if (res.status !== status || body.ok !== false || body.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status}: ${JSON.stringify(body)}`);
  }
  if (typeof body.error.message !== 'string' || body.error.message.length === 0) throw new Error('error without a message');
  return body.error;
}

/** The catalogue's services split greedily into groups without a conflicting pair (bundles holding every service). */
export function conflictFreeGroups(catalogue: Catalogue): string[][] {
  const groups: string[][] = [];
  const conflicts = (a: string, b: string) => [[a, b], [b, a]].some(([x, y]) => catalogue.services.get(x)!.manifest.conflictsWith?.includes(y));
  for (const id of catalogue.services.keys()) {
    const group = groups.find((g) => g.every((other) => !conflicts(id, other)));
    if (group) group.push(id);
    else groups.push([id]);
  }
  return groups;
}
