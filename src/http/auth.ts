// Bearer-key auth (spec section 5, DECISIONS "Auth"): several keys for rotation, constant-time compare,
// and never open: with no key configured the server makes one and prints it once.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export interface KeyCheck {
  /** a stable, non-secret id of the matched key (for rate-limit buckets), when the key is valid */
  keyId?: string;
  /** whether an Authorization header was sent at all */
  presented: boolean;
}

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
    if (typeof header !== 'string') return { presented: false };
    const match = /^bearer\s+(\S+)\s*$/i.exec(header);
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
