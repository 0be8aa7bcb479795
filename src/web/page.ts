// GET / (the page) and GET /assets/<hashed name>: public, no key, not counted against the rate limits
// (static files, like /livez; every API call the page makes is counted as usual). The HTML is no-cache
// with a strict Content-Security-Policy; the assets are immutable. The catalogue's categories are put in
// the HTML at request time (a data attribute, not a script), so a catalogue hot reload shows at once.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { REPO_ROOT } from '../config.js';
import type { Catalogue } from '../catalogue/types.js';
import { ApiError } from '../errors.js';
import type { AppDeps } from '../app-deps.js';
import { loadWebAssets } from './assets.js';

export const WEB_DIR = path.join(REPO_ROOT, 'web');
export const ASSET_PREFIX = '/assets/';

export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";
export const IMMUTABLE = 'public, max-age=31536000, immutable';

const COMMON_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface WebPage {
  serves(pathname: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): void;
}

export function webPage(deps: AppDeps, dir = WEB_DIR): WebPage {
  const assets = loadWebAssets(dir);
  // the HTML of each catalogue (one entry per loaded catalogue; a reloaded one drops out with it)
  const pages = new WeakMap<Catalogue, { body: Buffer; etag: string }>();

  const page = () => {
    const catalogue = deps.engine.current.catalogue;
    let cached = pages.get(catalogue);
    if (!cached) {
      const categories = [...catalogue.categories.values()].map(({ id, name, description }) => ({ id, name, description }));
      const html = assets.template
        .replace('{{categories}}', () => escapeHtml(JSON.stringify(categories)))
        .replaceAll('{{version}}', () => escapeHtml(deps.version));
      const body = Buffer.from(html);
      cached = { body, etag: `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      pages.set(catalogue, cached);
    }
    return cached;
  };

  const send = (req: IncomingMessage, res: ServerResponse, body: Buffer, etag: string, headers: Record<string, string>) => {
    const match = String(req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (match.includes(etag)) {
      res.writeHead(304, { ...headers, ETag: etag });
      res.end();
      return;
    }
    res.writeHead(200, { ...headers, ETag: etag, 'Content-Length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  return {
    serves: (pathname) => pathname === '/' || pathname === '/index.html' || pathname.startsWith(ASSET_PREFIX),
    handle(req, res, pathname) {
      req.resume();
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${pathname}; use GET or HEAD`, { headers: { Allow: 'GET, HEAD' } });
      }
      if (pathname.startsWith(ASSET_PREFIX)) {
        const asset = assets.byName.get(pathname.slice(ASSET_PREFIX.length));
        if (!asset) throw new ApiError('NOT_FOUND', `no asset at ${pathname}; asset names change with their content: load / again`);
        send(req, res, asset.body, asset.etag, { ...COMMON_HEADERS, 'Content-Type': asset.contentType, 'Cache-Control': IMMUTABLE });
        return;
      }
      const { body, etag } = page();
      send(req, res, body, etag, {
        ...COMMON_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': CONTENT_SECURITY_POLICY,
        'X-Frame-Options': 'DENY',
      });
    },
  };
}
