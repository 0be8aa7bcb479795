// Reads the .tar.gz that POST /api/v1/generate returns, in the browser: the page generates once, in the
// tar format, keeps the archive for the download and shows its files from these bytes (no second call).
// Handles what the server writes (ustar with its name prefix, pax and GNU long names, folders skipped).

const decoder = new TextDecoder();

function field(bytes, offset, length) {
  const slice = bytes.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return decoder.decode(end >= 0 ? slice.subarray(0, end) : slice);
}

/** The files of the archive, in archive order: { path (below the stack's top folder), text, size }. */
export async function readTarGz(blob) {
  const bytes = new Uint8Array(await new Response(blob.stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
  const files = [];
  let longName;
  for (let offset = 0; offset + 512 <= bytes.length;) {
    if (bytes[offset] === 0) break; // the zero blocks that end the archive
    const size = parseInt(field(bytes, offset + 124, 12).trim() || '0', 8);
    const type = bytes[offset + 156] === 0 ? '0' : String.fromCharCode(bytes[offset + 156]);
    const prefix = field(bytes, offset + 257, 5) === 'ustar' ? field(bytes, offset + 345, 155) : '';
    const name = prefix ? `${prefix}/${field(bytes, offset, 100)}` : field(bytes, offset, 100);
    const body = bytes.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      longName = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(decoder.decode(body))?.[1] ?? longName;
      continue;
    }
    if (type === 'L') {
      longName = field(body, 0, body.length);
      continue;
    }
    const path = longName ?? name;
    longName = undefined;
    if (type !== '0') continue; // folders
    files.push({ path: path.split('/').slice(1).join('/'), text: decoder.decode(body), size });
  }
  return files;
}
