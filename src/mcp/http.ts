// POST/GET/DELETE /mcp: the MCP Streamable HTTP transport, stateless (a protocol server and a transport
// per request, so any instance behind a load balancer answers any request and a catalogue hot reload is
// seen by the next call). The same bearer key as the API, and the same rate-limit buckets as the matching
// API operations: validate_stack counts as a write, generate_stack as a generate, everything else as a read.
import type { IncomingMessage } from 'node:http';
import type { StackResponse } from '../http/staged-headers.js';
import { ApiError } from '../errors.js';
import { readJsonBody } from '../http/body.js';
import { callerIdentity, type TrustedProxies } from '../http/client-address.js';
import { rateLimitedError, type BucketName } from '../http/rate-limit.js';
import type { WorkQueue } from '../usecases/work-queue.js';
import type { AppDeps } from '../app-deps.js';
import type { McpEngine } from './tools.js';
import { silentLogger } from '../observability/log.js';

export const MCP_PATH = '/mcp';
/** JSON-RPC messages one POST may carry (a batch is counted message by message against the limits) */
const MAX_BATCH = 20;

/** The handler of /mcp; `deps` is read at every request (the catalogue and generator may be swapped). */
export function mcpHandler(deps: AppDeps, generations: WorkQueue, trusted: TrustedProxies): (req: IncomingMessage, res: StackResponse) => Promise<void> {
  const engine: McpEngine = {
    catalogue: () => deps.engine.current.catalogue,
    generator: () => deps.engine.current.generator,
    generations,
    log: deps.log ?? silentLogger,
    get version() { return deps.version; },
  };

  /** Spends a token of the bucket (the headers set either way); the refusal when it is spent. */
  const take = async (bucket: BucketName, identity: string, res: StackResponse, forToolResult = false): Promise<ApiError | undefined> => {
    const limit = await deps.rateLimiter.take(bucket, identity);
    for (const [name, value] of Object.entries(limit.headers)) res.stage(name, value);
    return limit.allowed ? undefined : rateLimitedError(bucket, limit, forToolResult);
  };

  // the SDK (with zod and Hono's Node adapter) is loaded at the first /mcp request, not at every start:
  // a server nobody asks over MCP pays neither its start-up time nor its memory
  let sdk: Promise<[typeof import('./tools.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
  const loadSdk = () => (sdk ??= Promise.all([import('./tools.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

  return async (req, res) => {
    const key = deps.keys.check(req);
    const identity = callerIdentity(req, key.keyId, trusted);
    if (!key.keyId || req.method !== 'POST') {
      req.resume();
      const refused = await take('read', identity, res);
      if (refused) throw refused;
      if (!key.keyId) {
        throw new ApiError('UNAUTHORIZED', key.presented
          ? 'the API key is not valid: send Authorization: Bearer <key> with a key set in STACK_API_KEY'
          : 'the MCP endpoint needs an API key: send Authorization: Bearer <key> (the same key as the HTTP API)', { headers: { 'WWW-Authenticate': 'Bearer' } });
      }
      // stateless: no server-initiated stream to open (GET) and no session to end (DELETE)
      const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: `${req.method} is not supported on ${MCP_PATH}: this server is stateless; send JSON-RPC messages with POST` }, id: null });
      res.writeHead(405, { Allow: 'POST', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
      res.end(body);
      return;
    }

    const [{ createMcpServer, toolBucket }, { StreamableHTTPServerTransport }] = await loadSdk();
    const body = await readJsonBody(req, deps.config.bodyLimitBytes);
    const messages = Array.isArray(body) ? body : [body];
    if (messages.length > MAX_BATCH) throw new ApiError('VALIDATION_ERROR', `a batch holds at most ${MAX_BATCH} messages`, { details: { errors: [`${messages.length} messages sent`] } });
    // a tool call over a spent bucket is answered as a tool result the agent reads (RATE_LIMITED, with
    // the seconds to wait); any other message over a spent bucket is the API's 429
    const refusals = new Map<string | number, ApiError>();
    for (const m of messages) {
      const message = m as { method?: unknown; id?: unknown; params?: { name?: unknown } } | null;
      const toolCall = message?.method === 'tools/call' && (typeof message.id === 'string' || typeof message.id === 'number');
      const refused = await take(toolCall ? toolBucket(message!.params?.name) : 'read', identity, res, toolCall);
      if (refused && !toolCall) throw refused;
      if (refused) refusals.set(message!.id as string | number, refused);
    }

    res.setHeader('Cache-Control', 'no-store');
    const server = createMcpServer(engine, refusals);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}
