// Starting the service: read settings, load the catalogue (refusing to start on any error), listen,
// reload the catalogue on file changes and SIGHUP, drain on SIGTERM/SIGINT. `npm start`, `node dist/main.js`
// and `stackwright serve` all come here.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { readConfig, type Config } from './config.js';
import { loadCatalogue } from './catalogue/load.js';
import { loadCatalogueWithCache } from './catalogue/snapshot-cache.js';
import { formatProblem } from './catalogue/problems.js';
import { LiveEngine } from './live/live-engine.js';
import { ApiKeys } from './http/auth.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './http/rate-limit.js';
import { createServer } from './server.js';
import { STACKWRIGHT_VERSION } from './version.js';
import { fitConnectionCap } from './http/fd-limit.js';
import { releaseMemoryWhenIdle } from './http/idle-memory.js';
import { createLogger, type Logger } from './observability/log.js';
import type { Problem } from './catalogue/problems.js';
import { pluginsFolderProblem } from './plugins-folder.js';

/** One log record per catalogue problem, with its file, field and rule as fields. */
function logProblems(log: Logger, problems: readonly Problem[], level: 'warn' | 'error'): void {
  for (const p of problems) log[level]({ file: p.file, pointer: p.pointer || '/', rule: p.rule }, formatProblem(p));
}

/** Exit codes of `serve` (docs/cli.md): 0 stopped cleanly, 1 cannot start, 2 bad configuration. */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const startedAt = Date.now();
  let config: Config;
  try {
    config = readConfig(env);
  } catch (e) {
    // the logger's own settings may be what is wrong: this one line uses the defaults
    createLogger({ level: 'info', format: 'auto' }).fatal(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }
  const log = createLogger(config.log);

  // V8 grows the old generation by up to 4x what survived a GC, and a service that renders bundles all
  // day ends up holding that much garbage; a small factor keeps the resident set near the live heap.
  // It is read at every GC, so setting it here, before the catalogue loads, takes effect at once.
  if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);

  // connections that do not fit under the open-file limit would fail at accept (EMFILE), probes with them
  const connections = fitConnectionCap(config.maxConnections);
  config = { ...config, maxConnections: connections.cap };

  const emptyPlugins = pluginsFolderProblem(config.pluginsDir);
  if (emptyPlugins) {
    log.fatal({ dir: config.pluginsDir }, `${emptyPlugins}; not starting`);
    process.exit(1);
  }
  const dirs = { plugins: config.pluginsDir, catalogue: config.catalogueDir };
  const loaded = config.catalogueCacheFile ? loadCatalogueWithCache(dirs, config.catalogueCacheFile) : { ...loadCatalogue(dirs), fromCache: false };
  logProblems(log, loaded.warnings, 'warn');
  if (!loaded.catalogue) {
    log.fatal({ errors: loaded.errors.length }, `the catalogue has ${loaded.errors.length} error(s); not starting:`);
    logProblems(log, loaded.errors, 'error');
    process.exit(1);
  }
  const engine = new LiveEngine(loaded.catalogue, config, dirs);
  engine.on('reload', (reason: string, snapshot, changed: boolean, ms: number, warnings) => {
    logProblems(log, warnings, 'warn');
    const c = snapshot.catalogue;
    log.info({ event: 'reload', reason, revision: c.revision, changed, durationMs: Math.round(ms) }, changed
      ? `catalogue reloaded (${reason}) in ${ms.toFixed(0)} ms: revision ${c.revision}, ${c.services.size} services, ${c.skillPacks.size} skill packs, ${c.presets.size} presets`
      : `catalogue checked (${reason}): unchanged, revision ${c.revision}`);
  });
  engine.on('reloadFailed', (reason: string, errors) => {
    const revision = engine.current.catalogue.revision;
    log.error({ event: 'reloadFailed', reason, revision, errors: errors.length }, `catalogue reload (${reason}) refused: ${errors.length} error(s); still serving revision ${revision}:`);
    logProblems(log, errors, 'error');
  });
  engine.on('watchError', (where: string, e: Error) => log.error({ where, err: e }, `watching ${where}: ${e.message}; a change there may be missed until the next reload (send SIGHUP to reload now)`));
  engine.on('watching', () => log.info({ watching: [config.pluginsDir, config.catalogueDir] }, `watching ${config.pluginsDir} and ${config.catalogueDir}: changes reload the catalogue (STACK_WATCH_CATALOGUE=0 turns this off; SIGHUP reloads too)`));

  let apiKeys = config.apiKeys;
  if (apiKeys.length === 0) {
    const key = ApiKeys.generate();
    apiKeys = [key];
    // the one place a key is logged: an operator who set none needs to read it once
    log.warn(`No STACK_API_KEY is set, so this run uses a random API key (it changes at every start): ${key} — set STACK_API_KEY in the environment (comma-separate several to rotate keys) to keep a permanent one.`);
  }

  let store: RateLimitStore = new MemoryRateLimitStore();
  if (config.redisUrl) {
    try {
      // loaded only when used: the Redis client is the heaviest module of the service
      const { RedisRateLimitStore } = await import('./http/rate-limit-redis.js');
      store = await RedisRateLimitStore.connect(config.redisUrl, undefined, log);
    } catch (e) {
      log.fatal({ redis: 'down' }, `REDIS_URL is set but Redis cannot be reached (${(e as Error).message}); not starting`);
      process.exit(1);
    }
  }

  const version = STACKWRIGHT_VERSION;
  const server = createServer({ config, engine, keys: new ApiKeys(apiKeys), rateLimiter: new RateLimiter(config.rateLimits, store), version, startedAt, log, idleMemory: releaseMemoryWhenIdle() });

  // a busy port or an unknown host is one line naming the setting, not a stack trace
  server.on('error', (e: NodeJS.ErrnoException) => {
    const what = e.code === 'EADDRINUSE' ? `port ${config.port} is in use (set PORT to another)`
      : e.code === 'EACCES' ? `no permission to listen on port ${config.port} (ports below 1024 need privileges; set PORT)`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' ? `HOST "${config.host}" is not an address of this machine`
          : e.message;
    log.fatal({ host: config.host, port: config.port, code: e.code }, `cannot listen on ${config.host}:${config.port}: ${what}`);
    process.exit(1);
  });

  let stopWatching: (() => void) | undefined;
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const catalogue = engine.current.catalogue;
    log.info({ revision: catalogue.revision, loadMs: Math.round(loaded.loadMs), fromCache: loaded.fromCache }, `catalogue: ${catalogue.services.size} services, ${catalogue.frameworks.size} frameworks, ${catalogue.proxies.size} proxies, ${catalogue.skillPacks.size} skill packs, ${catalogue.presets.size} presets (loaded in ${loaded.loadMs.toFixed(0)} ms${loaded.fromCache ? ' from the start-up snapshot of these exact files' : ''}, ${loaded.warnings.length} warning(s))`);
    log.info({ rateLimitStore: config.redisUrl ? 'redis' : 'memory' }, `rate limits: ${config.redisUrl ? 'shared in Redis' : 'in memory'}; read ${config.rateLimits.read}, write ${config.rateLimits.write}, generate ${config.rateLimits.generate} per ${config.rateLimits.windowSeconds} s`);
    log.info({ maxConnections: config.maxConnections, maxConnectionsPerAddress: config.maxConnectionsPerAddress, openFiles: connections.openFiles ?? null }, `connections: at most ${config.maxConnections}, ${config.maxConnectionsPerAddress} per client address; open-file limit ${connections.openFiles ?? 'unknown'} (Node raises the soft limit to the hard one at start)`);
    if (connections.warning) log.warn(`warning: ${connections.warning}`);
    log.info({ event: 'listening', version, host: config.host, port }, `Stackwright ${version} listening on http://${config.host}:${port}/api/v1 (ready ${performance.now().toFixed(0)} ms after the process started)`);
    // a supervisor (or a test) waits for this line: written now, not with the next batch
    log.flush();
    // warmed once the service is answering: what a new selection needs, a step at a time between requests
    engine.warm();
    // the watch walks every plugin folder: set it up once the service is already answering
    if (config.watchCatalogue) {
      try {
        stopWatching = engine.watch(config.reloadDebounceMs);
      } catch (e) {
        log.warn(`warning: cannot watch the catalogue folders (${(e as Error).message}); send SIGHUP to reload`);
      }
    }
  });

  process.on('SIGHUP', () => engine.reload('SIGHUP'));
  const shutdown = (signal: string) => {
    if (server.draining) return;
    // a stopping server reloads nothing, and the watch's folder scan would compete with the drain
    stopWatching?.();
    log.info({ event: 'draining', signal }, `${signal}: answering requests already under way, then stopping (at most ${config.shutdownTimeoutMs / 1000} s)`);
    void server.shutdown()
      .then(() => store.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
