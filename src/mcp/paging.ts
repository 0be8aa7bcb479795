// Lists an agent can hold in its context: a compact entry by default (id, name, one line of description),
// the full entry on request, and pages of `limit` entries with an opaque cursor and the total. A cursor
// is bound to the tool, its filters and the catalogue revision, so a page never mixes two catalogues or
// two questions: a stale or foreign cursor is refused with what to do.
import crypto from 'node:crypto';
import { validationError } from '../errors.js';
import type { ArgSpec } from './arguments.js';

export const DEFAULT_LIMIT = 25;
/** fewer full entries a page by default: each is several times a compact one */
export const DEFAULT_DETAIL_LIMIT = 10;
export const MAX_LIMIT = 100;

/** The arguments every list tool takes besides its filters. */
export const PAGING_ARGS = {
  limit: { type: 'integer', min: 1, max: MAX_LIMIT },
  cursor: { type: 'string' },
  detail: { type: 'boolean' },
} as const satisfies Record<string, ArgSpec>;

/** Their JSON Schema, for the tools' input schemas. */
export const PAGING_PROPERTIES = {
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `entries a page (default ${DEFAULT_LIMIT}, or ${DEFAULT_DETAIL_LIMIT} with detail)` },
  cursor: { type: 'string', maxLength: 500, description: 'nextCursor of the previous answer, for the next page (with the same filters)' },
  detail: { type: 'boolean', description: 'full entries instead of id, name and one line of description (default false)' },
};

interface CursorState { o: number; k: string }

/** What a cursor is bound to: the tool, its filters, the catalogue revision. */
function bindingOf(tool: string, filters: Record<string, unknown>, revision: string): string {
  return crypto.createHash('sha256').update(JSON.stringify([tool, filters, revision])).digest('base64url').slice(0, 16);
}

export interface Page<T> { total: number; items: T[]; nextCursor?: string }

/**
 * One page of `all`, from the cursor's place (or the start), `limit` long; a function as the limit is asked
 * for the page's length from its first index (a page cut to a size in bytes rather than a count).
 */
export function page<T>(all: readonly T[], opts: { tool: string; filters: Record<string, unknown>; revision: string; limit?: number | ((offset: number) => number); cursor?: string; detail?: boolean }): Page<T> {
  const binding = bindingOf(opts.tool, opts.filters, opts.revision);
  let offset = 0;
  if (opts.cursor !== undefined) {
    let state: CursorState | undefined;
    try {
      state = JSON.parse(Buffer.from(opts.cursor, 'base64url').toString('utf8')) as CursorState;
    } catch { /* reported below */ }
    if (!state || !Number.isInteger(state.o) || state.o < 0 || typeof state.k !== 'string') {
      throw validationError('the arguments are invalid', ['cursor is not one this server gave: send the nextCursor of the previous answer unchanged, or leave cursor out to start from the first page']);
    }
    if (state.k !== binding) {
      throw validationError('the arguments are invalid', ['cursor belongs to other filters, or the catalogue has been reloaded since: send the same filters as the call that gave it, or leave cursor out to start again']);
    }
    offset = state.o;
  }
  const limit = typeof opts.limit === 'function' ? opts.limit(offset) : opts.limit ?? (opts.detail ? DEFAULT_DETAIL_LIMIT : DEFAULT_LIMIT);
  const items = all.slice(offset, offset + limit);
  const next = offset + limit;
  return {
    total: all.length,
    items,
    ...(next < all.length ? { nextCursor: Buffer.from(JSON.stringify({ o: next, k: binding } satisfies CursorState)).toString('base64url') } : {}),
  };
}
