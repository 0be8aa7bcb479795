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
  const mode = isExecutable(file) ? 0o755 : 0o644;
  try {
    // a new file takes its mode as it is made: one call, where most writes are into a new folder
    fs.writeFileSync(target, content, { mode, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // writing over a file keeps its old mode: set ours
    fs.writeFileSync(target, content);
    fs.chmodSync(target, mode);
  }
}

export function writeBundle(dir: string, files: Record<string, string>): void {
  const made = new Set<string>();
  for (const [file, content] of Object.entries(files)) writeBundleFile(dir, file, content, made);
}
