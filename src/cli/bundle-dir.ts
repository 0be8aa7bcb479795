// A bundle as files in a folder: the same names and modes as the tar (scripts executable).
import { fs, util } from '../node-builtins.js';
import path from 'node:path';
import { isExecutable } from '../bundle/archive.js';

const modeOf = (file: string) => (isExecutable(file) ? 0o755 : 0o644);

// the callback API made into promises: reading `fs.promises` loads a module of its own (~2 ms of a run)
const mkdir = util.promisify(fs.mkdir);
const writeFile = util.promisify(fs.writeFile);
const chmod = util.promisify(fs.chmod);

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
  const mode = modeOf(file);
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

/**
 * Writes a whole bundle under dir. Folders are made a level at a time and files all at once, on libuv's
 * threads: creating a file or folder is kernel work that can take the better part of a millisecond on a
 * busy file system (docs/architecture.md), and a stack is ~60 folders and ~70 files.
 */
export async function writeBundle(dir: string, files: Record<string, string>): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const levels: string[][] = [];
  const seen = new Set<string>(['.']);
  for (const file of Object.keys(files)) {
    for (let folder = path.dirname(file); !seen.has(folder); folder = path.dirname(folder)) {
      seen.add(folder);
      const depth = folder.split('/').length - 1;
      (levels[depth] ??= []).push(folder);
    }
  }
  for (const level of levels) {
    if (!level) continue;
    await Promise.all(level.map((folder) => mkdir(path.join(dir, folder)).catch((e: NodeJS.ErrnoException) => {
      // --force over an earlier stack: its folders are there already
      if (e.code !== 'EEXIST') throw e;
    })));
  }
  await Promise.all(Object.entries(files).map(async ([file, content]) => {
    const target = path.join(dir, file);
    const mode = modeOf(file);
    try {
      await writeFile(target, content, { mode, flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      await writeFile(target, content);
      await chmod(target, mode);
    }
  }));
}
