import type { IncomingMessage } from 'node:http';
import type { ChunkedBody } from '../http/envelope.js';
import type { BucketName } from '../http/rate-limit.js';

export interface RouteContext {
  req: IncomingMessage;
  params: Record<string, string | undefined>;
  query: URLSearchParams;
  /** the parsed JSON body (POST routes) */
  body: unknown;
}

/** JSON data for the envelope (or the whole envelope already encoded), or a download. */
export type Reply =
  | { data: unknown; status?: number }
  | { envelope: Buffer | ChunkedBody }
  | { body: Buffer; headers: Record<string, string> };

/** What the OpenAPI description says of a route (routes/openapi.ts). */
export interface RouteDoc {
  summary: string;
  /** a $def of schemas/api-responses.schema.json */
  response?: string;
  /** a component built from schemas/*-request.schema.json */
  requestBody?: string;
  query?: { name: string; description: string }[];
  /** content type of an alternative download answer */
  download?: string;
  conflict?: boolean;
  /** longer text for the operation (the summary otherwise) */
  description?: string;
  /** catalogue, stacks or meta (by method otherwise) */
  tag?: string;
  /** a readable operationId (one built from the path otherwise) */
  operationId?: string;
  /** the answer is not in the envelope (the OpenAPI document itself) */
  raw?: boolean;
  /** a GET whose answer changes on every request (health's uptime): no-store, no ETag and no 304 */
  volatile?: boolean;
}

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  bucket: BucketName;
  auth: boolean;
  doc?: RouteDoc;
  handle(ctx: RouteContext): Reply | Promise<Reply>;
}
