// Reads a JSON request body with a size cap and a nesting cap, turning every way it can be wrong into a 4xx.
import type { IncomingMessage } from 'node:http';
import { ApiError, validationError } from '../errors.js';
import { lingerAfterAnswer } from './lingering-close.js';
import { MAX_JSON_DEPTH, nestingDepth } from '../json-nesting.js';

/** The client went away before its body arrived: nothing to answer, nothing to log as an error. */
export class ClientAborted extends Error {}


export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    // drain so the connection can be reused
    req.resume();
    throw validationError('the request body must be JSON', ['send the header Content-Type: application/json']);
  }
  const text = (await readBody(req, limitBytes)).toString('utf8');
  if (text.trim() === '') throw validationError('the request body is empty', ['send a JSON object']);
  const depth = nestingDepth(text, MAX_JSON_DEPTH);
  if (depth > MAX_JSON_DEPTH) {
    throw validationError(`the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, [`JSON nesting is limited to ${MAX_JSON_DEPTH} levels; a stack request needs 2`]);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw validationError('the request body is not valid JSON', [`JSON syntax error: ${(e as Error).message}`]);
  }
}

/** A body being read: since when, how much so far, and how to stop it with an answer. */
interface ArrivingBody { since: number; bytes: number; refuse: (err: ApiError) => void }
const arriving = new WeakMap<IncomingMessage, ArrivingBody>();
/** A body is not judged slow before this long: a client may pause for a moment before sending it. */
export const BODY_RATE_GRACE_MS = 2_000;

/** Whether the request's body is still arriving, and on average slower than `minBytesPerSecond`. */
export function bodyArrivingTooSlowly(req: IncomingMessage, minBytesPerSecond: number, now = Date.now()): boolean {
  const body = arriving.get(req);
  if (!body) return false;
  const elapsed = now - body.since;
  return elapsed >= BODY_RATE_GRACE_MS && (body.bytes * 1000) / elapsed < minBytesPerSecond;
}

/**
 * Ends the reading of a body that arrives too slowly (the connection is needed for another client): the
 * request is answered 408 with Connection: close, and the connection closes gracefully.
 */
export function refuseSlowBody(req: IncomingMessage, minBytesPerSecond: number): void {
  lingerAfterAnswer(req);
  arriving.get(req)?.refuse(new ApiError('REQUEST_TIMEOUT', `the request body arrived slower than ${minBytesPerSecond} bytes a second while the server needed the connection; send the body at once`, {
    headers: { Connection: 'close' },
  }));
}

/**
 * The body's bytes, at most `limitBytes`. Past the limit the rest is not read into memory: the answer is
 * 413 with Connection: close, and the connection closes gracefully (lingering-close.ts) rather than being
 * destroyed while the client is still sending, which would reset it before it reads the 413.
 */
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const tooLarge = () => {
    lingerAfterAnswer(req);
    return new ApiError('VALIDATION_ERROR', `the request body is larger than ${limitBytes} bytes`, {
      status: 413, details: { errors: [`body exceeds the ${limitBytes}-byte limit`] }, headers: { Connection: 'close' },
    });
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const progress: ArrivingBody = {
      since: Date.now(),
      bytes: 0,
      refuse: (err) => {
        stop();
        reject(err);
      },
    };
    arriving.set(req, progress);
    const stop = () => {
      arriving.delete(req);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      progress.bytes = size;
      if (size > limitBytes) {
        stop();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    // Node ends the body with an "aborted" error (ECONNRESET), or just closes it, when the client leaves mid-body
    const onAbort = (e: Error) => {
      stop();
      reject(new ClientAborted(e.message));
    };
    const onClose = () => {
      if (!req.complete) onAbort(new Error('aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
