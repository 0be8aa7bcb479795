// The response envelope of spec section 1: { ok: true, data } or { ok: false, error: { code, message, details? } }.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeHttp } from '../node-builtins.js';
import { ApiError } from '../errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

export function sendData(res: ServerResponse, data: unknown, status = 200): void {
  sendJson(res, status, { ok: true, data });
}

/** An answer body kept as the buffers it is made of; sendEnvelope writes them in one gathered write. */
export interface ChunkedBody { chunks: readonly Buffer[]; length: number }

/**
 * The success envelope around data already encoded as UTF-8 JSON chunks, kept as chunks: a bound
 * bundle's chunks are mostly its shape's shared buffers, so an answer written as they are allocates next
 * to nothing, where joining them would allocate the whole body again for every new name.
 */
export function successEnvelopeOf(dataChunks: Buffer[]): ChunkedBody {
  // runs of small chunks (quotes, names, file keys) are joined: each chunk written costs a call, and
  // copying small ones is cheaper than that; the large shared pieces go out as they are
  const chunks: Buffer[] = [];
  let run: Buffer[] = [];
  let runLength = 0;
  let length = 0;
  const endRun = () => {
    if (run.length) chunks.push(run.length === 1 ? run[0] : Buffer.concat(run, runLength));
    run = [];
    runLength = 0;
  };
  for (const chunk of [ENVELOPE_OPEN, ...dataChunks, ENVELOPE_CLOSE]) {
    length += chunk.length;
    if (chunk.length >= SHARED_CHUNK_BYTES) {
      endRun();
      chunks.push(chunk);
    } else {
      run.push(chunk);
      runLength += chunk.length;
    }
  }
  endRun();
  return { chunks, length };
}
const SHARED_CHUNK_BYTES = 1024;
const ENVELOPE_OPEN = Buffer.from('{"ok":true,"data":');
const ENVELOPE_CLOSE = Buffer.from('}');

/** The encoded success envelope around data that is already JSON text. */
export function successEnvelope(dataJson: string): Buffer {
  return Buffer.from(`{"ok":true,"data":${dataJson}}`);
}

/** Sends an envelope encoded ahead (cached views and bundles); chunks go out in one gathered write. */
export function sendEnvelope(res: ServerResponse, body: Buffer | ChunkedBody): void {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-store' });
  if (Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  res.cork();
  for (const chunk of body.chunks) res.write(chunk);
  res.end();
  res.uncork();
}

const etags = new WeakMap<Buffer, string>();

/** A strong validator of a pre-encoded body, computed once per body (the bodies live per catalogue revision). */
function etagOf(body: Buffer): string {
  let tag = etags.get(body);
  if (!tag) {
    tag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    etags.set(body, tag);
  }
  return tag;
}

/**
 * A catalogue read encoded ahead, with an ETag: a client that sends it back in If-None-Match gets 304 and
 * no body. Clients may keep the body but must ask again (no-cache), since the catalogue can change.
 */
export function sendCacheableEnvelope(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  const etag = etagOf(body);
  const sent = req.headers['if-none-match'];
  if (sent !== undefined && ifNoneMatchHolds(sent, etag)) {
    res.writeHead(304, { ETag: etag, 'Cache-Control': 'no-cache' });
    res.end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, ETag: etag, 'Cache-Control': 'no-cache' });
  res.end(body);
}

/** Whether an If-None-Match list names `etag` (weakly, RFC 9110 13.1.2) or is `*`. */
function ifNoneMatchHolds(sent: string, etag: string): boolean {
  const tags = sent.split(',').map((t) => t.trim().replace(/^W\//, ''));
  return tags.includes(etag) || tags.includes('*');
}

export function sendError(res: ServerResponse, err: ApiError): void {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  sendJson(res, err.status, { ok: false, error }, err.headers);
}

/**
 * A whole error response written straight to a socket, for requests Node's HTTP parser rejects before
 * there is a response object (bad request line, oversized headers, timeouts, bad framing).
 */
export function rawErrorResponse(err: ApiError, headers: Record<string, string> = {}): string {
  const body = JSON.stringify({ ok: false, error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) } });
  let extra = '';
  for (const name in headers) extra += `${name}: ${headers[name]}\r\n`;
  return `HTTP/1.1 ${err.status} ${nodeHttp().STATUS_CODES[err.status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n${extra}Connection: close\r\n\r\n${body}`;
}
