// The chunks of a rendered bundle's large files (text-chunks.ts), kept beside the frozen bundle so the
// answer and the archive are written from them, never from one flat copy of each file.
import type { Bundle } from './bundle.js';
import { CHUNK_CHARS } from '../text-chunks.js';

const bundleChunks = new WeakMap<Bundle, ReadonlyMap<string, readonly string[]>>();

/** Records the chunks of a bundle's files (those made in more than one). */
export function keepChunks(bundle: Bundle, chunks: ReadonlyMap<string, readonly string[]>): void {
  if (chunks.size) bundleChunks.set(bundle, chunks);
}

/** A file of a bundle as chunks: those it was made in, or its content as the one chunk. */
export function fileChunks(bundle: Bundle, file: string): readonly string[] {
  return bundleChunks.get(bundle)?.get(file) ?? [bundle.files[file]];
}

/**
 * JSON.stringify(bundle) as UTF-8 buffers of about CHUNK_CHARS characters each, written chunk by chunk;
 * undefined for a bundle with no chunked file (one JSON.stringify is cheaper then). The text is the same:
 * a chunk ends on a whole character (settledChunks), and JSON escapes character by character.
 */
export function chunkedBundleJson(bundle: Bundle): Buffer[] | undefined {
  const chunks = bundleChunks.get(bundle);
  if (!chunks) return undefined;
  const out: Buffer[] = [];
  let open = '';
  const put = (text: string) => {
    open += text;
    if (open.length >= CHUNK_CHARS) {
      out.push(Buffer.from(open));
      open = '';
    }
  };
  put(`{"name":${JSON.stringify(bundle.name)},"files":{`);
  let first = true;
  for (const [file, content] of Object.entries(bundle.files)) {
    put(`${first ? '' : ','}${JSON.stringify(file)}:`);
    first = false;
    const parts = chunks.get(file);
    if (!parts) {
      put(JSON.stringify(content));
      continue;
    }
    put('"');
    for (const part of parts) put(JSON.stringify(part).slice(1, -1));
    put('"');
  }
  put(`},"summary":${JSON.stringify(bundle.summary)}}`);
  if (open.length) out.push(Buffer.from(open));
  return out;
}
