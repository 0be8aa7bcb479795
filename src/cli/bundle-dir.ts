// A bundle as files in a folder: the same names and modes as the tar (scripts executable).
import fs from 'node:fs';
import path from 'node:path';
import { isExecutable } from '../engine/archive.js';

/**
 * Writes one bundle file under dir, creating its folders (once each when `made` remembers them across
 * calls). The name comes from the engine, never from a user.
 */
export function writeBundleFile(dir: string, file: string, content: string, made?: Set<string>): void {
  const target = path.join(dir, file);
  const folder = path.dirname(target);
  if (!made?.has(folder)) {
    fs.mkdirSync(folder, { recursive: true });
    made?.add(folder);
  }
  fs.writeFileSync(target, content, { mode: isExecutable(file) ? 0o755 : 0o644 });
  // writeFileSync keeps the mode of a file that already exists
  fs.chmodSync(target, isExecutable(file) ? 0o755 : 0o644);
}

export function writeBundle(dir: string, files: Record<string, string>): void {
  const made = new Set<string>();
  for (const [file, content] of Object.entries(files)) writeBundleFile(dir, file, content, made);
}
