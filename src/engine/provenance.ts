// stackwright.json: where a stack came from (DECISIONS "Provenance"). The request (it holds no
// secrets: those are made on the user's machine), the catalogue revision, the Stackwright version and
// the sha256 of every other generated file, so a later upgrade can tell the user's edits from ours.
import crypto from 'node:crypto';
import { STACKWRIGHT_VERSION } from '../version.js';

export const PROVENANCE_FILE = 'stackwright.json';

/** sha256 of a file's content, as stackwright.json records it. */
export function fileHash(content: string): string {
  return crypto.createHash('sha256').update(content).digest('hex');
}

/** The record; `known` holds hashes already computed for some of the files (the same content). */
export function provenance<R extends object>(request: R, fields: readonly (keyof R)[], catalogueRevision: string, files: ReadonlyMap<string, string>, known?: ReadonlyMap<string, string>): string {
  const sent: Record<string, unknown> = {};
  for (const f of fields) if (request[f] !== undefined) sent[f as string] = request[f];
  const hashes: Record<string, string> = {};
  for (const file of [...files.keys()].sort()) {
    hashes[file] = known?.get(file) ?? fileHash(files.get(file)!);
  }
  return `${JSON.stringify({
    stackwright: { version: STACKWRIGHT_VERSION, catalogueRevision },
    request: sent,
    files: hashes,
  }, null, 2)}\n`;
}
