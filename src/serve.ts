// Starting the service: read settings, load the catalogue (refusing to start on any error), listen,
// reload the catalogue on file changes and SIGHUP, drain on SIGTERM/SIGINT. `npm start`, `node dist/main.js`
// and `stackwright serve` all come here.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { readConfig, type Config } from './config.js';
import { loadCatalogue } from './catalogue/load.js';
import { loadCatalogueWithCache } from './catalogue/snapshot-cache.js';
import { formatProblem } from './catalogue/problems.js';
import { LiveEngine } from './engine/live-engine.js';
import { ApiKeys } from './http/auth.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './http/rate-limit.js';
import { createServer } from './server.js';
import { STACKWRIGHT_VERSION } from './version.js';
import { fitConnectionCap } from './http/fd-limit.js';

/** Exit codes of `serve` (docs/cli.md): 0 stopped cleanly, 1 cannot start, 2 bad configuration. */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const startedAt = Date.now();
  let config: Config;
  try {
    config = readConfig(env);
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }

  // V8 grows the old generation by up to 4x what survived a GC, and a service that renders bundles all
  // day ends up holding that much garbage; a small factor keeps the resident set near the live heap.
  // It is read at every GC, so setting it here, before the catalogue loads, takes effect at once.
  if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);

  // connections that do not fit under the open-file limit would fail at accept (EMFILE), probes with them
  const connections = fitConnectionCap(config.maxConnections);
  config = { ...config, maxConnections: connections.cap };

  const dirs = { plugins: config.pluginsDir, catalogue: config.catalogueDir };
  const loaded = config.catalogueCacheFile ? loadCatalogueWithCache(dirs, config.catalogueCacheFile) : { ...loadCatalogue(dirs), fromCache: false };
  for (const w of loaded.warnings) console.warn(formatProblem(w));
  if (!loaded.catalogue) {
    console.error(`the catalogue has ${loaded.errors.length} error(s); not starting:`);
    for (const p of loaded.errors) console.error(`  ${formatProblem(p)}`);
    process.exit(1);
  }
  const engine = new LiveEngine(loaded.catalogue, config, dirs);
  engine.on('reload', (reason: string, snapshot, changed: boolean, ms: number, warnings) => {
    for (const w of warnings) console.warn(formatProblem(w));
    const c = snapshot.catalogue;
    console.log(changed
      ? `catalogue reloaded (${reason}) in ${ms.toFixed(0)} ms: revision ${c.revision}, ${c.services.size} services, ${c.skillPacks.size} skill packs, ${c.presets.size} presets`
      : `catalogue checked (${reason}): unchanged, revision ${c.revision}`);
  });
  engine.on('reloadFailed', (reason: string, errors) => {
    console.error(`catalogue reload (${reason}) refused: ${errors.length} error(s); still serving revision ${engine.current.catalogue.revision}:`);
    for (const p of errors) console.error(`  ${formatProblem(p)}`);
  });
  engine.on('watchError', (where: string, e: Error) => console.error(`watching ${where}: ${e.message}; a change there may be missed until the next reload (send SIGHUP to reload now)`));
  engine.on('watching', () => console.log(`watching ${config.pluginsDir} and ${config.catalogueDir}: changes reload the catalogue (STACK_WATCH_CATALOGUE=0 turns this off; SIGHUP reloads too)`));

  let apiKeys = config.apiKeys;
  if (apiKeys.length === 0) {
    const key = ApiKeys.generate();
    apiKeys = [key];
    console.log(`No STACK_API_KEY is set, so this run uses a random API key (it changes at every start):\n  ${key}\nSet STACK_API_KEY in the environment (comma-separate several to rotate keys) to keep a permanent one.`);
  }

  let store: RateLimitStore = new MemoryRateLimitStore();
  if (config.redisUrl) {
    try {
      // loaded only when used: the Redis client is the heaviest module of the service
      const { RedisRateLimitStore } = await import('./http/rate-limit-redis.js');
      store = await RedisRateLimitStore.connect(config.redisUrl);
    } catch (e) {
      console.error(`REDIS_URL is set but Redis cannot be reached (${(e as Error).message}); not starting`);
      process.exit(1);
    }
  }

  const version = STACKWRIGHT_VERSION;
  const server = createServer({ config, engine, keys: new ApiKeys(apiKeys), rateLimiter: new RateLimiter(config.rateLimits, store), version, startedAt });

  // a busy port or an unknown host is one line naming the setting, not a stack trace
  server.on('error', (e: NodeJS.ErrnoException) => {
    const what = e.code === 'EADDRINUSE' ? `port ${config.port} is in use (set PORT to another)`
      : e.code === 'EACCES' ? `no permission to listen on port ${config.port} (ports below 1024 need privileges; set PORT)`
        : e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' ? `HOST "${config.host}" is not an address of this machine`
          : e.message;
    console.error(`cannot listen on ${config.host}:${config.port}: ${what}`);
    process.exit(1);
  });

  let stopWatching: (() => void) | undefined;
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const catalogue = engine.current.catalogue;
    console.log(`catalogue: ${catalogue.services.size} services, ${catalogue.frameworks.size} frameworks, ${catalogue.proxies.size} proxies, ${catalogue.skillPacks.size} skill packs, ${catalogue.presets.size} presets (loaded in ${loaded.loadMs.toFixed(0)} ms${loaded.fromCache ? ' from the start-up snapshot of these exact files' : ''}, ${loaded.warnings.length} warning(s))`);
    console.log(`rate limits: ${config.redisUrl ? 'shared in Redis' : 'in memory'}; read ${config.rateLimits.read}, write ${config.rateLimits.write}, generate ${config.rateLimits.generate} per ${config.rateLimits.windowSeconds} s`);
    console.log(`connections: at most ${config.maxConnections}, ${config.maxConnectionsPerAddress} per client address; open-file limit ${connections.openFiles ?? 'unknown'} (Node raises the soft limit to the hard one at start)`);
    if (connections.warning) console.warn(`warning: ${connections.warning}`);
    console.log(`Stackwright ${version} listening on http://${config.host}:${port}/api/v1 (ready ${performance.now().toFixed(0)} ms after the process started)`);
    // the watch walks every plugin folder: set it up once the service is already answering
    if (config.watchCatalogue) {
      try {
        stopWatching = engine.watch(config.reloadDebounceMs);
      } catch (e) {
        console.warn(`warning: cannot watch the catalogue folders (${(e as Error).message}); send SIGHUP to reload`);
      }
    }
  });

  process.on('SIGHUP', () => engine.reload('SIGHUP'));
  const shutdown = (signal: string) => {
    if (server.draining) return;
    // a stopping server reloads nothing, and the watch's folder scan would compete with the drain
    stopWatching?.();
    console.log(`${signal}: answering requests already under way, then stopping (at most ${config.shutdownTimeoutMs / 1000} s)`);
    void server.shutdown()
      .then(() => store.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
