// Who is calling, for per-address rate limits. X-Forwarded-For is believed only from proxies the operator
// named in STACK_TRUST_PROXY; otherwise anyone could pick their own bucket.
import type { IncomingMessage } from 'node:http';

export function clientAddress(req: IncomingMessage, trustedProxies: ReadonlySet<string>): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if (!trustedProxies.has(peer)) return peer;
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded !== 'string') return peer;
  // walk from the nearest hop back, skipping our own proxies: the first untrusted hop is the client
  const hops = forwarded.split(',').map((h) => normalise(h.trim())).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.has(hops[i])) return hops[i];
  return hops[0] ?? peer;
}

function normalise(address: string): string {
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
