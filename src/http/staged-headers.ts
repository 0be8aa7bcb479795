// The server's own headers on every answer (X-Request-Id, X-RateLimit-*, Connection: close while
// draining) are staged on the response and joined to the answer's headers when it is sent. Setting them
// with setHeader would put Node on its slower path: each one checked, lower-cased and stored in a map,
// and then each of the answer's own headers put through setHeader too, where a writeHead of one list
// takes the names as they are. Every answer goes through writeHead (an explicit call, or Node's implicit
// one from write or end), so a staged header is never left out, whoever writes the answer (our routes,
// the MCP transport, the web page).
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { nodeHttp } from '../node-builtins.js';

export interface StagedHeaders {
  /** A header for the answer, whoever sends it; a later stage of the same name replaces it. */
  stage(name: string, value: string): void;
  /** Whether a header of that name (as staged) is waiting to go out. */
  hasStaged(name: string): boolean;
}

export type StackResponse = ServerResponse & StagedHeaders;

type HeaderList = (string | number | OutgoingHttpHeader)[];

let responseClass: (new (req: IncomingMessage) => StackResponse) | undefined;

/** The ServerResponse class the server is made with (node:http is loaded on first use, see node-builtins.ts). */
export function stagedHeadersResponse(): new (req: IncomingMessage) => StackResponse {
  return (responseClass ??= class extends nodeHttp().ServerResponse<IncomingMessage> implements StagedHeaders {
    /** name, value, name, value: the order they were staged in */
    private staged: string[] = [];
    /** whether setHeader (or appendHeader) was used, so Node keeps a header map of its own */
    private mapped = false;

    stage(name: string, value: string): void {
      const at = this.stagedAt(name);
      if (at < 0) this.staged.push(name, value);
      else this.staged[at + 1] = value;
    }

    hasStaged(name: string): boolean {
      return this.stagedAt(name) >= 0;
    }

    private stagedAt(name: string): number {
      for (let i = 0; i < this.staged.length; i += 2) if (this.staged[i] === name) return i;
      return -1;
    }

    override setHeader(name: string, value: number | string | readonly string[]): this {
      this.mapped = true;
      return super.setHeader(name, value);
    }

    override appendHeader(name: string, value: string | readonly string[]): this {
      this.mapped = true;
      return super.appendHeader(name, value);
    }

    override writeHead(statusCode: number, reasonOrHeaders?: string | OutgoingHttpHeaders | HeaderList, maybeHeaders?: OutgoingHttpHeaders | HeaderList): this {
      const reason = typeof reasonOrHeaders === 'string' ? reasonOrHeaders : undefined;
      const headers = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
      const send = (all: OutgoingHttpHeaders | HeaderList | undefined) => (reason === undefined
        ? super.writeHead(statusCode, all as OutgoingHttpHeaders)
        : super.writeHead(statusCode, reason, all as OutgoingHttpHeaders));
      const staged = this.staged;
      this.staged = [];
      if (staged.length === 0) return send(headers);
      if (this.mapped || Array.isArray(headers)) {
        // Node merges into its map: ours go in first, so the answer's own headers win over them
        for (let i = 0; i < staged.length; i += 2) if (!this.hasHeader(staged[i])) super.setHeader(staged[i], staged[i + 1]);
        return send(headers);
      }
      // one flat list, Node's direct path; a header the answer sets itself (spelt as we spell it) replaces a staged one
      const list: string[] = [];
      for (let i = 0; i < staged.length; i += 2) if (!headers || !Object.hasOwn(headers, staged[i])) list.push(staged[i], staged[i + 1]);
      for (const name in headers) {
        const value = headers[name];
        if (value === undefined) continue;
        if (Array.isArray(value)) for (const one of value) list.push(name, String(one));
        else list.push(name, String(value));
      }
      return send(list);
    }
  } as unknown as new (req: IncomingMessage) => StackResponse);
}

