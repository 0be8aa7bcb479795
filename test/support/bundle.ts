// Reading generated bundles: unpack a tar.gz into entries, write a JSON bundle to disk.
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import tar from 'tar-stream';

export interface TarEntry { name: string; type: string; mode: number; mtime: Date; content: string }

export async function readTarGz(gz: Buffer): Promise<TarEntry[]> {
  const extract = tar.extract();
  const entries: TarEntry[] = [];
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: unknown) => chunks.push(c as Buffer));
      stream.on('end', () => {
        entries.push({ name: header.name, type: header.type ?? 'file', mode: header.mode ?? 0, mtime: header.mtime ?? new Date(0), content: Buffer.concat(chunks).toString('utf8') });
        next();
      });
      stream.resume();
    });
    extract.on('finish', resolve);
    extract.on('error', reject);
  });
  Readable.from(zlib.gunzipSync(gz)).pipe(extract);
  await done;
  return entries;
}

import { writeBundleFile } from '../../src/cli/bundle-dir.js';

/** A bundle written to dir one file after another, with the CLI's names and modes (the CLI's own parallel writer is tested through the command). */
export function writeBundle(dir: string, files: Record<string, string>): void {
  const made = new Set<string>();
  for (const [file, content] of Object.entries(files)) writeBundleFile(dir, file, content, made);
}

/** Every ${VAR} the compose file interpolates, and whether it has a default. */
export function composeVariables(compose: string): { name: string; hasDefault: boolean }[] {
  const out: { name: string; hasDefault: boolean }[] = [];
  // $$ is an escaped dollar, not an interpolation
  for (const m of compose.replace(/\$\$/g, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(:?[-?][^}]*)?\}/g)) {
    out.push({ name: m[1], hasDefault: Boolean(m[2]?.startsWith(':-') || m[2]?.startsWith('-')) });
  }
  return out;
}

export function envExampleKeys(envExample: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const line of envExample.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) keys.set(m[1], m[2]);
  }
  return keys;
}
