// Reads a JSON request body with a size cap, turning every way it can be wrong into a 4xx.
import type { IncomingMessage } from 'node:http';
import { ApiError, validationError } from '../errors.js';

/** The client went away before its body arrived: nothing to answer, nothing to log as an error. */
export class ClientAborted extends Error {}

export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    // drain so the connection can be reused
    req.resume();
    throw validationError('the request body must be JSON', ['send the header Content-Type: application/json']);
  }
  const tooLarge = () => new ApiError('VALIDATION_ERROR', `the request body is larger than ${limitBytes} bytes`, {
    status: 413, details: { errors: [`body exceeds the ${limitBytes}-byte limit`] },
  });
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limitBytes) {
        req.resume();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    // Node ends the body stream with "aborted" (ECONNRESET) when the client disconnects mid-body
    throw new ClientAborted((e as Error).message);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw validationError('the request body is empty', ['send a JSON object']);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw validationError('the request body is not valid JSON', [`JSON syntax error: ${(e as Error).message}`]);
  }
}
