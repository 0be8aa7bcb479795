// The page's static files (web/): read once at start, each named by a hash of its content so browsers
// may keep it for a year (a new version gets a new name). ES modules import each other by these names,
// so a module's hash covers the names of what it imports; index.html names them through {{asset:...}}.
import crypto from 'node:crypto';
import { fs } from '../node-builtins.js';
import path from 'node:path';

export interface Asset {
  /** the public file name, e.g. app.3f9a0c1b2d.js */
  name: string;
  body: Buffer;
  contentType: string;
  etag: string;
}

export interface WebAssets {
  /** public name → asset */
  byName: Map<string, Asset>;
  /** source file name (app.js) → public name */
  names: Map<string, string>;
  /** index.html with the asset names filled in; {{categories}} and {{version}} are left for each request */
  template: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(['"])\.\/([A-Za-z0-9_-]+\.js)\2/g;

function hashed(file: string, body: Buffer): string {
  const digest = crypto.createHash('sha256').update(body).digest('base64url').replace(/[-_]/g, '').slice(0, 10);
  const ext = path.extname(file);
  return `${file.slice(0, -ext.length)}.${digest}${ext}`;
}

export function loadWebAssets(dir: string): WebAssets {
  const files = fs.readdirSync(dir).filter((f) => f !== 'index.html' && TYPES[path.extname(f)]).sort();
  const names = new Map<string, string>();
  const byName = new Map<string, Asset>();
  const visiting = new Set<string>();

  const add = (file: string): string => {
    const known = names.get(file);
    if (known) return known;
    if (visiting.has(file)) throw new Error(`web/${file}: modules import each other in a cycle`);
    visiting.add(file);
    let body = fs.readFileSync(path.join(dir, file));
    if (file.endsWith('.js')) {
      body = Buffer.from(body.toString('utf8').replace(IMPORT, (_m, lead: string, quote: string, target: string) => {
        if (!files.includes(target)) throw new Error(`web/${file} imports ./${target}, which is not in web/`);
        return `${lead}${quote}./${add(target)}${quote}`;
      }));
    }
    const name = hashed(file, body);
    const etag = `"${name}"`;
    names.set(file, name);
    byName.set(name, { name, body, contentType: TYPES[path.extname(file)], etag });
    visiting.delete(file);
    return name;
  };
  for (const f of files) add(f);

  const template = fs.readFileSync(path.join(dir, 'index.html'), 'utf8').replace(/\{\{asset:([^}]+)\}\}/g, (_m, file: string) => {
    const name = names.get(file);
    if (!name) throw new Error(`web/index.html names {{asset:${file}}}, which is not in web/`);
    return `/assets/${name}`;
  });
  return { byName, names, template };
}
