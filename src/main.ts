// Entry point: read settings, load the catalogue (refusing to start on any error), start listening.
import { performance } from 'node:perf_hooks';
import { readConfig } from './config.js';
import { loadCatalogue } from './catalogue/load.js';
import { loadCatalogueWithCache } from './catalogue/snapshot-cache.js';
import { formatProblem } from './catalogue/problems.js';
import { Generator } from './engine/generate.js';
import { ApiKeys } from './http/auth.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './http/rate-limit.js';
import { createServer } from './server.js';
import { STACKWRIGHT_VERSION } from './version.js';
import { descriptorWarning } from './http/fd-limit.js';

async function main(): Promise<void> {
  const startedAt = Date.now();
  let config;
  try {
    config = readConfig();
  } catch (e) {
    console.error(`configuration error: ${(e as Error).message}`);
    process.exit(2);
  }

  const dirs = { plugins: config.pluginsDir, catalogue: config.catalogueDir };
  const loaded = config.catalogueCacheFile ? loadCatalogueWithCache(dirs, config.catalogueCacheFile) : { ...loadCatalogue(dirs), fromCache: false };
  for (const w of loaded.warnings) console.warn(formatProblem(w));
  if (!loaded.catalogue) {
    console.error(`the catalogue has ${loaded.errors.length} error(s); not starting:`);
    for (const p of loaded.errors) console.error(`  ${formatProblem(p)}`);
    process.exit(1);
  }
  const catalogue = loaded.catalogue;

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
  const server = createServer({
    config,
    catalogue,
    keys: new ApiKeys(apiKeys),
    rateLimiter: new RateLimiter(config.rateLimits, store),
    generator: new Generator(catalogue, config.templatesDir, config.renderCacheSize, config.bundleCacheBytes),
    version,
    startedAt,
  });

  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    console.log(`catalogue: ${catalogue.services.size} services, ${catalogue.frameworks.size} frameworks, ${catalogue.proxies.size} proxies, ${catalogue.skillPacks.size} skill packs, ${catalogue.presets.size} presets (loaded in ${loaded.loadMs.toFixed(0)} ms${loaded.fromCache ? ' from the start-up snapshot of these exact files' : ''}, ${loaded.warnings.length} warning(s))`);
    console.log(`rate limits: ${config.redisUrl ? 'shared in Redis' : 'in memory'}; read ${config.rateLimits.read}, write ${config.rateLimits.write}, generate ${config.rateLimits.generate} per ${config.rateLimits.windowSeconds} s`);
    const fdWarning = descriptorWarning(config.maxConnections);
    if (fdWarning) console.warn(`warning: ${fdWarning}`);
    console.log(`Stackwright ${version} listening on http://${config.host}:${port}/api/v1 (ready ${performance.now().toFixed(0)} ms after the process started)`);
  });

  const shutdown = (signal: string) => {
    if (server.draining) return;
    console.log(`${signal}: answering requests already under way, then stopping (at most ${config.shutdownTimeoutMs / 1000} s)`);
    void server.shutdown()
      .then(() => store.close())
      .finally(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
