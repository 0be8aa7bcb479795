// A bundle as files in a folder: the same names and modes as the tar (scripts executable).
import fs from 'node:fs';
import path from 'node:path';
import { isExecutable } from '../engine/archive.js';

/** Writes one bundle file under dir, creating its folders. The name comes from the engine, never from a user. */
export function writeBundleFile(dir: string, file: string, content: string): void {
  const target = path.join(dir, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content, { mode: isExecutable(file) ? 0o755 : 0o644 });
  // writeFileSync keeps the mode of a file that already exists
  fs.chmodSync(target, isExecutable(file) ? 0o755 : 0o644);
}

export function writeBundle(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) writeBundleFile(dir, file, content);
}
