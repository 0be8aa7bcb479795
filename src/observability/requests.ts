// One record per HTTP request: its id (the caller's X-Request-Id when sane, else a new one, sent back on
// every answer), then, once the answer is sent or the client has gone, one log line and the request
// metrics. The server fills in the route pattern and the key as it learns them, and ends the record from
// its one close listener per request.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StagedHeaders } from '../http/staged-headers.js';
import { clientAddress, type TrustedProxies } from '../http/client-address.js';
import type { Logger } from './log.js';
import { requestLineWriter } from './request-line.js';
import type { Metrics } from './metrics.js';

/** An id a proxy or client may send: bounded, and only characters that are safe in a log line and a header. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:+=/@-]{1,128}$/;
/** Status recorded for a request whose client went away before the answer was sent (nginx's 499). */
export const CLIENT_CLOSED = 499;
/** The route of a request that matched no endpoint (a bounded label, never the raw path). */
export const UNMATCHED = 'unmatched';

export interface RequestRecord {
  readonly id: string;
  /** the route pattern (`/api/v1/presets/:name`), not the raw URL */
  route: string;
  /** the matched API key's id (a prefix of its SHA-256), when a valid key was sent */
  keyId?: string;
  /** performance.now() when the request arrived */
  readonly started: number;
}

export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}

export interface RequestObserver {
  /** Starts the record of a request: sets X-Request-Id on the answer. */
  start(req: IncomingMessage, res: StagedHeaders): RequestRecord;
  /** Ends it once the response has closed (answered, or the client went away): its log line and metrics. */
  finish(req: IncomingMessage, res: ServerResponse, record: RequestRecord): void;
}

export function requestObserver({ log, metrics, trusted, logRequests }: { log: Logger; metrics: Metrics; trusted: TrustedProxies; logRequests: boolean }): RequestObserver {
  const logLine = requestLineWriter(log);
  return {
    start(req, res) {
      const record: RequestRecord = { id: requestIdOf(req), route: UNMATCHED, started: performance.now() };
      res.stage('X-Request-Id', record.id);
      return record;
    },
    finish(req, res, record) {
      const seconds = (performance.now() - record.started) / 1000;
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      const method = req.method ?? 'GET';
      metrics.requestDone(method, record.route, status, seconds);
      if (!logRequests) return;
      logLine({
        requestId: record.id, method, route: record.route, status, durationMs: Math.round(seconds * 1e4) / 10,
        client: clientAddress(req, trusted),
        // a fingerprint names the key in the log; the key itself never appears
        key: record.keyId?.slice(0, 8),
      }, `${method} ${record.route} ${status}`);
    },
  };
}
