// GET /metrics: the registry in the Prometheus text format, for a bearer that is an API key or the
// separate STACK_METRICS_TOKEN (docs/decisions.md "Metrics"). Outside /api/v1 and never rate-limited, like
// the probes: a scraper that is throttled leaves gaps exactly when the service is busiest.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../errors.js';
import { ApiKeys } from '../http/auth.js';
import type { Metrics } from './metrics.js';

export const METRICS_PATH = '/metrics';

export function metricsRoute(metrics: Metrics, keys: ApiKeys, token: string | undefined): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const tokens = token ? new ApiKeys([token]) : undefined;
  return async (req, res) => {
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${METRICS_PATH}; use GET or HEAD`, { headers: { Allow: 'GET, HEAD' } });
    }
    if (!keys.check(req).keyId && !tokens?.check(req).keyId) {
      throw new ApiError('UNAUTHORIZED', `${METRICS_PATH} needs Authorization: Bearer <key>, with an API key${token ? ' or STACK_METRICS_TOKEN' : ''}`, { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    const body = Buffer.from(await metrics.registry.metrics());
    res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Content-Length': body.length, 'Cache-Control': 'no-store' });
    res.end(body);
  };
}
