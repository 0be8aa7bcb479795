// Two file-system steps the caches share (the catalogue snapshot, its listing, the CLI's stored shapes).
import type { Dirent } from 'node:fs';
import { fs } from './node-builtins.js';
import path from 'node:path';

/**
 * The files under root, sorted by name at each level (a folder's files where the folder sorts). `enter`
 * sees each folder before its entries are read and may keep the walk out of it (false); a folder that
 * cannot be read holds no files.
 */
export function filesUnder(root: string, enter: (dir: string) => boolean = () => true): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    if (!enter(dir)) return;
    let entries: Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      if (e.isDirectory()) walk(path.join(dir, e.name));
      else if (e.isFile()) files.push(path.join(dir, e.name));
    }
  };
  walk(root);
  return files;
}

/**
 * Writes `data` to `file` whole or not at all: into a temporary name of this process's own (the server
 * and a CLI may write the same file at once), then renamed over it. False where it cannot be written
 * (a read-only install), with nothing left behind.
 */
export function writeFileAtomically(file: string, data: string): boolean {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
    return true;
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // no folder to have left it in
    }
    return false;
  }
}
