// stackwright.json: where a stack came from (DECISIONS "Provenance"). The request (it holds no
// secrets: those are made on the user's machine), the catalogue revision, the Stackwright version and
// the sha256 of every other generated file, so a later upgrade can tell the user's edits from ours.
import crypto from 'node:crypto';
import { STACKWRIGHT_VERSION } from '../version.js';

export const PROVENANCE_FILE = 'stackwright.json';

export function provenance<R extends object>(request: R, fields: readonly (keyof R)[], catalogueRevision: string, files: ReadonlyMap<string, string>): string {
  const sent: Record<string, unknown> = {};
  for (const f of fields) if (request[f] !== undefined) sent[f as string] = request[f];
  const hashes: Record<string, string> = {};
  for (const file of [...files.keys()].sort()) {
    hashes[file] = crypto.createHash('sha256').update(files.get(file)!).digest('hex');
  }
  return `${JSON.stringify({
    stackwright: { version: STACKWRIGHT_VERSION, catalogueRevision },
    request: sent,
    files: hashes,
  }, null, 2)}\n`;
}
