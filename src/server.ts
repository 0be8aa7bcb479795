// The HTTP server: routing (find-my-way), then for every request the same steps in one place:
// rate limit → auth → body → handler → envelope. Routes only return data or throw ApiError.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { nodeHttp } from './node-builtins.js';
import FindMyWay from 'find-my-way';
import type { AppDeps } from './app-deps.js';
import { ApiError } from './errors.js';
import { ClientAborted, readJsonBody } from './http/body.js';
import { guardConnections } from './http/connections.js';
import { lingerAfterAnswer } from './http/lingering-close.js';
import { sendCacheableEnvelope, sendData, sendEnvelope, sendError } from './http/envelope.js';
import { stagedHeadersResponse, type StackResponse } from './http/staged-headers.js';
import { catalogueRoutes } from './routes/catalogue-routes.js';
import { writeRoutes } from './routes/write-routes.js';
import { openApiRoute } from './routes/openapi.js';
import type { Route } from './routes/types.js';
import type { EngineSnapshot } from './live/live-engine.js';
import { WorkQueue } from './usecases/work-queue.js';
import { probeReply } from './http/probes.js';
import { rateLimitedError } from './http/rate-limit.js';
import { addressIdentity, callerIdentity, TrustedProxies } from './http/client-address.js';
import { MCP_PATH, mcpHandler } from './mcp/http.js';
import { webPage } from './web/page.js';
import { silentLogger } from './observability/log.js';
import { createMetrics } from './observability/metrics.js';
import { METRICS_PATH, metricsRoute } from './observability/metrics-route.js';
import { requestObserver, type RequestRecord } from './observability/requests.js';

/** The parts of the request target the routes read. */
interface RequestTarget {
  pathname: string;
  query: URLSearchParams;
}

/** The query of a target without one, shared by those requests: routes only read their query. */
const NO_QUERY = new URLSearchParams();

/**
 * A path that URL parsing would return unchanged: only RFC 3986 path characters, no percent-escape, no
 * query. Most requests are such, and taking them as they are spares a URL object per request.
 */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*$/;

/**
 * The request target as a path and query. Parsed after a fixed origin, so `//x` stays a path (not a
 * host). A target in absolute form (`http://host/api/v1/health`) is taken as its path and query: RFC 9112
 * §3.2.2 says an origin server must accept it (the host in it names this server). A target with a `.` or
 * `..` segment (also percent-encoded) is refused rather than resolved: URL parsing would turn
 * `/api/v1/presets/%2e` into the preset list and `/x/..` into something else again.
 */
function requestTarget(req: IncomingMessage): RequestTarget {
  const sent = req.url ?? '/';
  const target = sent.charCodeAt(0) === 47 /* / */ ? sent : sent.replace(/^https?:\/\/[^/?#]*/i, '');
  const path = target.split(/[?#]/, 1)[0];
  if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) {
    throw new ApiError('NOT_FOUND', `no endpoint at ${path}: paths with . or .. segments are not resolved; send the path itself`);
  }
  if (PLAIN_PATH.test(target)) return { pathname: target, query: NO_QUERY };
  try {
    const url = new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`);
    return { pathname: url.pathname, query: url.searchParams };
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'the request target is not a valid URL path', { details: { errors: [`cannot parse ${JSON.stringify(req.url)}`] } });
  }
}

/** The HTTP server plus its shutdown: drain (answer what arrives, Connection: close), then stop. */
export interface AppServer extends Server {
  /** Resolves once every request in flight is answered, or after config.shutdownTimeoutMs. */
  shutdown(): Promise<void>;
  readonly draining: boolean;
}

export function createServer(deps: AppDeps): AppServer {
  const { config, engine, keys, rateLimiter } = deps;
  const log = deps.log ?? silentLogger;
  const health = (snapshot: EngineSnapshot) => {
    const { catalogue, loadedAt } = snapshot;
    const failure = engine.lastReloadError;
    return {
      status: 'ok',
      version: deps.version,
      uptime: Math.floor((Date.now() - deps.startedAt) / 1000),
      services: catalogue.services.size,
      skillPacks: catalogue.skillPacks.size,
      presets: catalogue.presets.size,
      catalogue: {
        revision: catalogue.revision,
        loadedAt: loadedAt.toISOString(),
        lastReloadError: failure ? { at: failure.at.toISOString(), count: failure.count, problems: failure.problems } : null,
      },
    };
  };
  const generations = new WorkQueue(2, config.generateQueue);
  // the routes of one catalogue snapshot, built when it first serves a request
  const tables = new WeakMap<EngineSnapshot, Map<string, Route>>();
  const routesOf = (snapshot: EngineSnapshot): Map<string, Route> => {
    let table = tables.get(snapshot);
    if (!table) {
      const apiRoutes: Route[] = [...catalogueRoutes(snapshot.catalogue, () => health(snapshot)), ...writeRoutes({ generator: snapshot.generator, generations })];
      const routes = [...apiRoutes, openApiRoute(apiRoutes, deps.version)];
      table = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
      tables.set(snapshot, table);
    }
    return table;
  };
  // the paths are the same for every snapshot: the router is built once and stores the route's key
  const router = FindMyWay({ ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 });
  const initialRoutes = [...routesOf(engine.current).values()];
  for (const route of initialRoutes) {
    router.on(route.method, route.path, () => undefined, `${route.method} ${route.path}`);
  }
  const allMethods = [...new Set(initialRoutes.map((r) => r.method))];
  const trusted = new TrustedProxies(config.trustProxy);
  let draining = false;
  // the other doors onto the same engine: MCP (src/mcp) and the web page (src/web)
  const mcp = mcpHandler(deps, generations, trusted);
  const web = webPage(deps);

  /**
   * The X-RateLimit-* headers for an answer that spends no token (probes, the web page, a scrape, a
   * connection over the cap, an error before the limit was taken): the read bucket as this instance knows
   * it, since every response carries them (spec section 8). Never a round trip to a shared store: a probe
   * must answer whatever Redis does.
   */
  function uncountedLimitHeaders(req: IncomingMessage, res: StackResponse): void {
    if (res.headersSent || res.hasStaged('X-RateLimit-Limit')) return;
    const headers = rateLimiter.known('read', callerIdentity(req, keys.check(req).keyId, trusted));
    for (const name in headers) res.stage(name, headers[name]);
  }

  async function handle(req: IncomingMessage, res: StackResponse, record: RequestRecord): Promise<void> {
    // Node's own answer to this (requireHostHeader) would be a bare 400: it is ours, with the envelope
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor === 1) {
      req.resume();
      throw new ApiError('VALIDATION_ERROR', 'an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)', {
        headers: { Connection: 'close' }, details: { errors: ['send Host: with the name of this server'] },
      });
    }
    // a target that is refused is refused after the limit is taken, so its answer carries the headers too
    let url: RequestTarget | undefined;
    let refusedTarget: ApiError | undefined;
    try {
      url = requestTarget(req);
    } catch (e) {
      refusedTarget = e as ApiError;
    }
    const pathname = url?.pathname ?? '';
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    // probes answer before limits, keys and the connection cap: an orchestrator must never be
    // rate-limited or turned away into restarting a healthy process
    const probe = probeReply(pathname, method, { draining });
    if (probe) {
      record.route = pathname.replace(/\/$/, '');
      req.resume();
      uncountedLimitHeaders(req, res);
      sendData(res, probe.data, probe.status);
      return;
    }
    // a scrape is answered like a probe (its own credentials, never rate-limited)
    if (url && pathname === METRICS_PATH) {
      record.route = METRICS_PATH;
      uncountedLimitHeaders(req, res);
      return metricsEndpoint(req, res);
    }
    if (connections.overCap(req.socket)) {
      lingerAfterAnswer(req);
      throw new ApiError('SERVICE_UNAVAILABLE', 'too many connections are open from this address (or in all) and every one is busy; try again in a second', {
        headers: { 'Retry-After': '1', Connection: 'close' },
      });
    }
    if (pathname === MCP_PATH) {
      record.route = MCP_PATH;
      record.keyId = keys.check(req).keyId;
      return mcp(req, res);
    }
    if (url && web.serves(pathname)) {
      record.route = 'web';
      uncountedLimitHeaders(req, res);
      return web.handle(req, res, pathname);
    }
    const found = url ? router.find(method as 'GET', pathname) : null;
    const route = found ? routesOf(engine.current).get(found.store as string) : undefined;
    if (route) record.route = route.path;

    const key = keys.check(req);
    record.keyId = key.keyId;
    const identity = callerIdentity(req, key.keyId, trusted);
    const bucket = route?.bucket ?? (method === 'GET' ? 'read' : 'write');
    const taken = rateLimiter.take(bucket, identity);
    // counted in memory, the decision is here already: awaiting it would cost a tick for nothing
    const limit = taken instanceof Promise ? await taken : taken;
    for (const name in limit.headers) res.stage(name, limit.headers[name]);
    if (!limit.allowed) {
      req.resume();
      throw rateLimitedError(bucket, limit);
    }
    if (refusedTarget || !url) {
      req.resume();
      throw refusedTarget;
    }

    if (!route) {
      req.resume();
      const allowed = allMethods.filter((m) => router.find(m as 'GET', url.pathname));
      if (allowed.length) {
        throw new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${url.pathname}; use ${allowed.join(' or ')}`, { headers: { Allow: allowed.join(', ') } });
      }
      throw new ApiError('NOT_FOUND', `no endpoint at ${url.pathname}; the API lives under /api/v1 (see GET /api/v1/openapi.json)`);
    }
    if (route.auth && !key.keyId) {
      req.resume();
      throw new ApiError('UNAUTHORIZED', key.presented
        ? 'the API key is not valid: send Authorization: Bearer <key> with a key set in STACK_API_KEY'
        : 'this endpoint needs an API key: send Authorization: Bearer <key>', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const body = route.method === 'POST' ? await readJsonBody(req, config.bodyLimitBytes) : undefined;
    const answer = route.handle({ req, params: found!.params, query: url.query, body });
    // most reads answer at once: awaiting a value would cost a tick for nothing
    const reply = answer instanceof Promise ? await answer : answer;
    if ('body' in reply) {
      res.writeHead(200, { ...reply.headers, 'Content-Length': reply.body.length });
      res.end(reply.body);
    } else if ('envelope' in reply) {
      if (route.method === 'GET' && Buffer.isBuffer(reply.envelope)) sendCacheableEnvelope(req, res, reply.envelope);
      else sendEnvelope(res, reply.envelope);
    } else {
      sendData(res, reply.data, reply.status);
    }
  }

  let inFlight = 0;
  let idleResolve: (() => void) | undefined;
  // sockets not yet reaped are checked every second, so a connection that never sends its request line
  // is closed after headersTimeout instead of at Node's 30-second check
  // every answer is a StackResponse: the server's own headers are staged on it (http/staged-headers.ts)
  const server = nodeHttp().createServer({ connectionsCheckingInterval: 1_000, requireHostHeader: false, ServerResponse: stagedHeadersResponse() as unknown as typeof ServerResponse }, (req, response) => {
    const res = response as StackResponse;
    const record = observer.start(req, res);
    connections.requestStarted(req);
    inFlight++;
    deps.idleMemory?.activity(inFlight);
    // while draining, every answer closes its connection, so keep-alive clients go to another instance
    if (draining) res.stage('Connection', 'close');
    // one listener for everything that ends with the response (each costs an allocation per request);
    // 'close' comes once, so `on` spares the wrapper `once` would make
    res.on('close', () => {
      observer.finish(req, res, record);
      connections.requestEnded(req);
      inFlight--;
      deps.idleMemory?.activity(inFlight);
      if (inFlight === 0) idleResolve?.();
    });
    handle(req, res, record)
      .catch(async (err: unknown) => {
        if (err instanceof ClientAborted || !res.socket || res.socket.destroyed) {
          // the client went away: nothing to answer, and no error of ours (its rate-limit token stays spent;
          // the request log records it as 499)
          res.destroy();
          return;
        }
        if (res.headersSent) {
          res.destroy(err as Error);
          return;
        }
        // an error from before the limit was taken (a probe's, a body's on /mcp) carries the headers too
        uncountedLimitHeaders(req, res);
        if (res.headersSent || res.destroyed) return;
        if (err instanceof ApiError) {
          // a 500 with its own code (a broken plugin template) is the operator's to fix: log it too
          if (err.status === 500) {
            log.error({ requestId: record.id, method: req.method, route: record.route, status: err.status, code: err.code }, `${req.method} ${record.route} ${err.status} ${err.code}: ${err.message}`);
          }
          sendError(res, err);
        } else {
          log.error({ err, requestId: record.id, method: req.method, route: record.route }, `unexpected error on ${req.method} ${record.route}`);
          sendError(res, new ApiError('INTERNAL_ERROR', 'unexpected server error; it has been logged'));
        }
      });
  });

  // an Expect other than 100-continue: Node's own answer would be a bare 417; this one has the envelope
  // and the headers every answer carries
  server.on('checkExpectation', (req: IncomingMessage, response: ServerResponse) => {
    const res = response as StackResponse;
    uncountedLimitHeaders(req, res);
    req.resume();
    sendError(res, new ApiError('VALIDATION_ERROR', `the Expect header "${String(req.headers.expect).slice(0, 100)}" cannot be met: only 100-continue is supported`, {
      status: 417, headers: { Connection: 'close' }, details: { errors: ['send Expect: 100-continue, or no Expect header'] },
    }));
  });

  // told of each request's start and end (a busy connection is not closed to make room), and consulted by
  // handle(): connections taken over a cap get 503
  // a request the HTTP parser refuses has no key to read: it carries the read bucket of its address
  const connections = guardConnections(server, config, (peer) => rateLimiter.known('read', addressIdentity(peer)));
  const metrics = createMetrics({ engine, rateLimiter, generations, connectionCapActions: connections.actions });
  const observer = requestObserver({ log, metrics, trusted, logRequests: config.logRequests });
  const metricsEndpoint = metricsRoute(metrics, keys, config.metricsToken);

  const app = server as AppServer;
  Object.defineProperty(app, 'draining', { get: () => draining });
  app.shutdown = async () => {
    if (draining) return;
    draining = true;
    // a grace period in which requests already on their way (connections accepted, bytes not yet read)
    // are still read and answered, before the listener closes
    await new Promise((r) => setTimeout(r, config.drainGraceMs));
    const closed = new Promise<void>((r) => server.close(() => r()));
    const idle = inFlight === 0 ? Promise.resolve() : new Promise<void>((r) => { idleResolve = r; });
    const deadline = new Promise<void>((r) => setTimeout(r, config.shutdownTimeoutMs).unref());
    // close() also ends the idle keep-alive connections (Node 19 and later)
    await Promise.race([idle.then(() => closed), deadline]);
    server.closeAllConnections();
    deps.idleMemory?.stop();
  };
  return app;
}
