// What the HTTP server and the doors it serves (the API routes, /mcp, the page) are built from. Its own
// module, below server.ts, mcp/http.ts and web/page.ts, so those read it without importing each other.
import type { Logger } from './observability/log.js';
import type { Config } from './config.js';
import type { LiveEngine } from './live/live-engine.js';
import type { ApiKeys } from './http/auth.js';
import type { IdleMemory } from './http/idle-memory.js';
import type { RateLimiter } from './http/rate-limit.js';

export interface AppDeps {
  config: Config;
  /** the catalogue and generator in force; a hot reload swaps them between requests */
  engine: LiveEngine;
  keys: ApiKeys;
  rateLimiter: RateLimiter;
  version: string;
  startedAt: number;
  /** where the request log and errors go (none when omitted) */
  log?: Logger;
  /** told of every request's start and end, to give memory back once idle (the service's; tests leave it out) */
  idleMemory?: IdleMemory;
}
