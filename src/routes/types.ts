import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { BucketName } from '../http/rate-limit.js';

export interface RouteContext {
  req: IncomingMessage;
  params: Record<string, string | undefined>;
  query: URLSearchParams;
  /** the parsed JSON body (POST routes) */
  body: unknown;
}

/** JSON data for the envelope, or a raw download. */
export type Reply =
  | { data: unknown; status?: number }
  | { stream: Readable; headers: Record<string, string> };

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  bucket: BucketName;
  auth: boolean;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}
