// The proxy's basic-auth file: one user and a bcrypt hash, in the form the proxy reads. The bundle
// ships it locked (a hash of a password nobody knows), so a proxy started before scripts/start.sh has
// written the real one turns every visitor away instead of letting them in.
import type { ProxyManifest } from '../catalogue/types.js';

type AuthFormat = ProxyManifest['basicAuth']['format'];

/** A printf(1) format taking the user and the hash, per file format (start.sh writes the file with it). */
export const AUTH_FILE_FORMAT: Record<AuthFormat, string> = {
  caddy: '# written by scripts/start.sh from .env: STACK_PROXY_USER and the bcrypt hash of STACK_PROXY_PASSWORD\\nbasicauth {\\n\\t%s %s\\n}\\n',
  htpasswd: '%s:%s\\n',
};

const LOCKED_USER = 'locked-until-start';
// bcrypt (cost 10) of 32 random bytes that were thrown away
const LOCKED_HASH = '$2b$10$GZKAg8z85JPpfEbjirIo0u6KgwEljnMCQXEk70JEP3/TYzgpO75tO';

export function lockedAuthFile(format: AuthFormat): string {
  return AUTH_FILE_FORMAT[format].replace('%s', LOCKED_USER).replace('%s', LOCKED_HASH).replace(/\\n/g, '\n').replace(/\\t/g, '\t');
}
