// Runtime settings from the environment (docs/configuration.md lists each). Parsed once at start;
// a bad value stops the service with a message naming the variable.
import { fs } from './node-builtins.js';
import path from 'node:path';
import { isToken68 } from './http/auth.js';
import { parseTrustedProxy } from './http/client-address.js';
import { fileURLToPath } from 'node:url';
import { LOG_FORMATS, LOG_LEVELS, type LogSettings } from './observability/log-settings.js';

/** The folder holding package.json: the same whether this runs from src/ (tsx) or dist/ (compiled). */
export const REPO_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function findRoot(dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json'))) return d;
    if (path.dirname(d) === d) throw new Error(`no package.json above ${dir}`);
  }
}

export interface RateLimitConfig { read: number; write: number; generate: number; windowSeconds: number }

export interface Config {
  host: string;
  port: number;
  apiKeys: string[];
  /** after SIGTERM/SIGINT: how long requests in flight may take before the process exits anyway */
  shutdownTimeoutMs: number;
  /** after SIGTERM/SIGINT: how long the server still reads requests on open connections before closing the listener */
  drainGraceMs: number;
  /** open connections at most, in total and from one client address */
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** bytes a second a request body must average (after 2 s) for its connection not to count as idle at a cap */
  minBodyRate: number;
  /** how much V8 grows the old generation past what survived a GC, in percent (0: the factor V8 picks, up to 4x) */
  heapGrowingPercent: number;
  /** generate requests that may wait for a turn; more get 503 */
  generateQueue: number;
  trustProxy: string[];
  pluginsDir: string;
  catalogueDir: string;
  templatesDir: string;
  rateLimits: RateLimitConfig;
  redisUrl?: string;
  bodyLimitBytes: number;
  /** entries of the fragment LRU (0 turns it off) */
  renderCacheSize: number;
  /** bytes the fragment LRU may hold, keys and values (0 turns it off) */
  renderCacheBytes: number;
  /** bytes of whole bundles kept for repeated requests (0 turns the bundle cache off) */
  bundleCacheBytes: number;
  /** the start-up snapshot of the checked catalogue ('' turns it off) */
  catalogueCacheFile: string;
  /** one log line per request (on unless STACK_LOG_REQUESTS=0) */
  logRequests: boolean;
  log: LogSettings;
  /** a bearer token for GET /metrics only, beside the API keys (so a scraper holds no write key) */
  metricsToken?: string;
  /** reload the catalogue when plugins/ or catalogue/ change (SIGHUP reloads either way) */
  watchCatalogue: boolean;
  /** hash a bundle's files for its record on a second thread (bundle/parallel-hash.ts), where there is more than one core */
  hashThread: boolean;
  /** quiet time after the last change before a reload */
  reloadDebounceMs: number;
}

/** The rule for STACK_API_KEY (docs/configuration.md): long enough, and not a short pattern repeated. */
export const KEY_RULE = { minLength: 24, minDistinct: 10 } as const;

const KEY_ADVICE = `Use at least ${KEY_RULE.minLength} random characters, for example from \`openssl rand -hex 24\` or \`node -e "console.log(require('node:crypto').randomBytes(24).toString('base64url'))"\``;

/** Why a key is too weak to guard the write endpoints, or undefined when it is strong enough. */
export function keyWeakness(key: string): string | undefined {
  if (key.length < KEY_RULE.minLength) return `${key.length} characters; at least ${KEY_RULE.minLength} are needed`;
  const distinct = new Set(key).size;
  if (distinct < KEY_RULE.minDistinct) return `only ${distinct} different characters; at least ${KEY_RULE.minDistinct} are needed`;
  return undefined;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
    return n;
  };
  const flag = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'off', 'no'].includes(raw)) return false;
    throw new Error(`${name} must be 1 or 0 (true/false, on/off; got "${raw}")`);
  };
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(', ')} (got "${raw}")`);
    return raw as T;
  };
  const list = (name: string) => (env[name] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const dir = (name: string, fallback: string) => path.resolve(env[name] || path.join(REPO_ROOT, fallback));
  const apiKeys = list('STACK_API_KEY');
  if (apiKeys.some((k) => !isToken68(k))) {
    throw new Error('STACK_API_KEY holds a key a Bearer token cannot carry: keys may hold letters, digits, - . _ ~ + / and trailing = (RFC 9110 token68)');
  }
  apiKeys.forEach((key, i) => {
    const weakness = keyWeakness(key);
    // the key itself is never printed: it may be a real (if weak) secret in a shared log
    if (weakness) throw new Error(`STACK_API_KEY holds a key that is too easy to guess (${apiKeys.length > 1 ? `key ${i + 1} of ${apiKeys.length}: ` : ''}${weakness}). ${KEY_ADVICE}`);
  });
  const metricsToken = env.STACK_METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && (!isToken68(metricsToken) || keyWeakness(metricsToken))) {
    throw new Error(`STACK_METRICS_TOKEN is too easy to guess (${keyWeakness(metricsToken) ?? 'it may hold only letters, digits and - . _ ~ + /'}). ${KEY_ADVICE}`);
  }
  const trustProxy = list('STACK_TRUST_PROXY');
  const badProxy = trustProxy.find((entry) => !parseTrustedProxy(entry));
  if (badProxy !== undefined) {
    throw new Error(`STACK_TRUST_PROXY holds "${badProxy}", which is neither an IP address nor a CIDR range (examples: 10.0.0.2, 172.16.0.0/12, fd00::/8)`);
  }
  return {
    host: env.HOST || '127.0.0.1',
    port: int('PORT', 8080, 0, 65535),
    apiKeys,
    trustProxy,
    pluginsDir: dir('STACK_PLUGINS_DIR', 'plugins'),
    catalogueDir: dir('STACK_CATALOGUE_DIR', 'catalogue'),
    templatesDir: dir('STACK_TEMPLATES_DIR', 'templates'),
    rateLimits: {
      read: int('STACK_RATE_LIMIT_READ', 100, 1, 1e9),
      write: int('STACK_RATE_LIMIT_WRITE', 20, 1, 1e9),
      generate: int('STACK_RATE_LIMIT_GENERATE', 5, 1, 1e9),
      windowSeconds: int('STACK_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86400),
    },
    redisUrl: env.REDIS_URL || undefined,
    bodyLimitBytes: int('STACK_BODY_LIMIT_BYTES', 64 * 1024, 1024, 16 * 1024 * 1024),
    renderCacheSize: int('STACK_RENDER_CACHE_SIZE', 2000, 0, 1e6),
    renderCacheBytes: int('STACK_RENDER_CACHE_MB', 8, 0, 4096) * 1024 * 1024,
    bundleCacheBytes: int('STACK_BUNDLE_CACHE_MB', 16, 0, 4096) * 1024 * 1024,
    catalogueCacheFile: env.STACK_CATALOGUE_CACHE ?? path.join(REPO_ROOT, 'dist', 'catalogue-cache.json'),
    logRequests: flag('STACK_LOG_REQUESTS', true),
    log: { level: oneOf('STACK_LOG_LEVEL', LOG_LEVELS, 'info'), format: oneOf('STACK_LOG_FORMAT', LOG_FORMATS, 'auto') },
    metricsToken,
    shutdownTimeoutMs: int('STACK_SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 3600) * 1000,
    drainGraceMs: int('STACK_SHUTDOWN_GRACE_MS', 1000, 0, 60_000),
    maxConnections: int('STACK_MAX_CONNECTIONS', 1000, 1, 1e6),
    maxConnectionsPerAddress: int('STACK_MAX_CONNECTIONS_PER_ADDRESS', 100, 1, 1e6),
    minBodyRate: int('STACK_MIN_BODY_RATE', 500, 0, 1e9),
    generateQueue: int('STACK_GENERATE_QUEUE', 200, 0, 1e6),
    watchCatalogue: flag('STACK_WATCH_CATALOGUE', true),
    hashThread: flag('STACK_HASH_THREAD', true),
    reloadDebounceMs: int('STACK_RELOAD_DEBOUNCE_MS', 300, 0, 60_000),
    heapGrowingPercent: int('STACK_HEAP_GROWING_PERCENT', 25, 0, 1000),
  };
}
