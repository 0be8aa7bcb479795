// GET /livez and GET /readyz: what container health checks, load balancers and orchestrators ask.
// Outside /api/v1, unauthenticated and never rate-limited (a 429 there would get a healthy process
// restarted); /api/v1/health stays the spec's counted read.
import { ApiError } from '../errors.js';

const PROBE_PATHS = ['/livez', '/readyz'] as const;

/** The probe's answer, or undefined when the path is no probe. Throws 503 from /readyz while draining. */
export function probeReply(pathname: string, method: string, state: { draining: boolean }): { data: unknown; status: number } | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (!(PROBE_PATHS as readonly string[]).includes(path)) return undefined;
  if (method !== 'GET') {
    throw new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}; use GET or HEAD`, { headers: { Allow: 'GET, HEAD' } });
  }
  if (path === '/livez') return { data: { status: 'live' }, status: 200 };
  // the catalogue is loaded before the listener opens, so a listening server is ready until it drains
  if (state.draining) throw new ApiError('SERVICE_UNAVAILABLE', 'shutting down: finishing the requests under way; send new ones to another instance');
  return { data: { status: 'ready' }, status: 200 };
}
