// Who is calling, for per-address rate limits. X-Forwarded-For is believed only from proxies the operator
// named in STACK_TRUST_PROXY (addresses and CIDR ranges); otherwise anyone could pick their own bucket.
import type { IncomingMessage } from 'node:http';

/**
 * node:net, loaded when first needed: config.ts checks STACK_TRUST_PROXY with this module, and a CLI
 * command that reads the config should not pay for loading the network stack (~3 ms of its start).
 */
const net = () => process.getBuiltinModule('node:net');

/** The addresses and ranges of STACK_TRUST_PROXY, parsed once (parseTrustedProxy checks each at start). */
export class TrustedProxies {
  private readonly list = new (net().BlockList)();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const parsed = parseTrustedProxy(entry);
      if (!parsed) throw new Error(`not an address or CIDR range: "${entry}"`);
      if (parsed.prefix === undefined) this.list.addAddress(parsed.address, parsed.family);
      else this.list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.empty = entries.length === 0;
  }

  has(address: string): boolean {
    if (this.empty) return false;
    const family = net().isIP(address);
    return family !== 0 && this.list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  }
}

/** `10.0.0.1`, `::1`, `172.16.0.0/12` or `fd00::/8`, or null when the text is none of these. */
export function parseTrustedProxy(entry: string): { address: string; family: 'ipv4' | 'ipv6'; prefix?: number } | null {
  const [address, prefixText, extra] = entry.split('/');
  const version = net().isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const family = version === 6 ? 'ipv6' : 'ipv4';
  if (prefixText === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > (version === 6 ? 128 : 32)) return null;
  return { address, family, prefix: Number(prefixText) };
}

export function clientAddress(req: IncomingMessage, trustedProxies: TrustedProxies): string {
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

/** The rate-limit identity of a caller: its API key when it sent a valid one, else its address. */
export function callerIdentity(req: IncomingMessage, keyId: string | undefined, trustedProxies: TrustedProxies): string {
  return keyId ? `key:${keyId}` : addressIdentity(clientAddress(req, trustedProxies));
}

/** The rate-limit identity of a connection's peer address (a request with no headers to read). */
export function addressIdentity(address: string | undefined): string {
  return `ip:${normalise(address ?? 'unknown')}`;
}
