// The tar format of a bundle: gzip'd tar, every entry under <name>/, scripts 0755, everything else
// 0644, one fixed mtime and owner, so the same bundle always gives the same bytes.
import type { Readable } from 'node:stream';
import type tarStream from 'tar-stream';
import type { Bundle } from './bundle.js';
import { fileChunks } from './file-chunks.js';

// loaded with the first archive: most requests want JSON, and the service (and the CLI writing a folder)
// starts faster without them
let tar: typeof tarStream | undefined;
let zlib: typeof import('node:zlib') | undefined;

/** 2000-01-01T00:00:00Z: fixed, so archives are reproducible. */
const MTIME = new Date(Date.UTC(2000, 0, 1));

export function isExecutable(file: string): boolean {
  return file.endsWith('.sh');
}

/** A gzip stream of the bundle's tar. */
async function archiveStream(bundle: Bundle): Promise<Readable> {
  tar ??= (await import('tar-stream')).default;
  zlib ??= process.getBuiltinModule('node:zlib');
  const pack = tar.pack();
  const dirs = new Set<string>();
  const entry = (header: Pick<tarStream.Header, 'name' | 'type' | 'mode'>, content: string | Buffer = '') =>
    pack.entry({ ...header, mtime: MTIME, uid: 0, gid: 0, uname: '', gname: '' } as tarStream.Header, content);
  entry({ name: `${bundle.name}/`, type: 'directory', mode: 0o755 });
  for (const file of Object.keys(bundle.files)) {
    const parts = file.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!dirs.has(dir)) {
        dirs.add(dir);
        entry({ name: `${bundle.name}/${dir}/`, type: 'directory', mode: 0o755 });
      }
    }
    // a large file from its chunks (file-chunks.ts), encoded one by one
    const chunks = fileChunks(bundle, file);
    const content = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
    entry({ name: `${bundle.name}/${file}`, type: 'file', mode: isExecutable(file) ? 0o755 : 0o644 }, content);
  }
  pack.finalize();
  // level 6 is the zlib default; fixed here so the bytes do not depend on a changed default
  return pack.pipe(zlib.createGzip({ level: 6 }));
}

const archives = new WeakMap<Bundle, Promise<Buffer>>();

/** The whole .tar.gz of a bundle; a bundle served again from the generator's cache reuses its bytes. */
export function archiveBuffer(bundle: Bundle): Promise<Buffer> {
  let archive = archives.get(bundle);
  if (!archive) {
    archive = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of await archiveStream(bundle)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    })();
    archives.set(bundle, archive);
  }
  return archive;
}
