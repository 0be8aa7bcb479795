// Bearer-key auth (spec section 5, DECISIONS "Auth"): several keys for rotation, constant-time compare,
// and never open: with no key configured the server makes one and prints it once.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const TOKEN68_CREDENTIALS = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** Whether a key can be sent as an RFC 9110 token68 at all (the characters a configured key may hold). */
export function isToken68(key: string): boolean {
  return /^[A-Za-z0-9\-._~+/]+=*$/.test(key);
}

export interface KeyCheck {
  /** a stable, non-secret id of the matched key (for rate-limit buckets), when the key is valid */
  keyId?: string;
  /** whether an Authorization header was sent at all */
  presented: boolean;
}

/** The answer for a request without credentials (most reads), made once. */
const NO_KEY: KeyCheck = Object.freeze({ presented: false });

export class ApiKeys {
  private readonly digests: Buffer[];

  constructor(keys: string[]) {
    if (keys.length === 0) throw new Error('at least one API key is needed');
    this.digests = keys.map(digest);
  }

  /** A random key for a deployment that configured none. */
  static generate(): string {
    return crypto.randomBytes(24).toString('base64url');
  }

  check(req: IncomingMessage): KeyCheck {
    const header = req.headers.authorization;
    if (typeof header !== 'string') return NO_KEY;
    // RFC 9110 11.4 and 11.6.2: the scheme is case-insensitive, then one or more spaces (SP only: not
    // tabs or no-break spaces), then a token68; Node has already trimmed the header's outer whitespace
    const match = TOKEN68_CREDENTIALS.exec(header);
    if (!match) return { presented: true };
    const presented = digest(match[1]);
    let found: Buffer | undefined;
    // compare against every key so the time taken does not reveal which (or whether one) matched
    for (const d of this.digests) if (crypto.timingSafeEqual(d, presented)) found = d;
    return { presented: true, keyId: found ? found.toString('hex').slice(0, 16) : undefined };
  }
}

function digest(key: string): Buffer {
  return crypto.createHash('sha256').update(key).digest();
}
