// The process's open-file limit, read from /proc (Linux). Node raises the soft limit to the hard limit
// when it starts, so what is read here is as high as this process can go; the connection cap is fitted
// under it, leaving room for everything else that needs a descriptor.
import { fs } from '../node-builtins.js';

/** Descriptors kept for all but client connections: Node itself, files, Redis, the catalogue watch. */
const RESERVED_DESCRIPTORS = 64;
/** The cap is never fitted below this: fewer connections would not be a service. */
const MIN_CONNECTIONS = 16;

export function openFileLimit(): { soft: number; hard: number } | undefined {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line?.match(/\d+|unlimited/g) ?? []).map((v) => (v === 'unlimited' ? Infinity : Number(v)));
    return soft === undefined ? undefined : { soft, hard: hard ?? soft };
  } catch {
    return undefined;
  }
}

/**
 * The connection cap that fits under the open-file limit, and a line for the start log when
 * STACK_MAX_CONNECTIONS had to be lowered (idle connections could otherwise use up every descriptor).
 */
export function fitConnectionCap(maxConnections: number, limit = openFileLimit()): { cap: number; openFiles?: number; warning?: string } {
  if (!limit) return { cap: maxConnections };
  if (maxConnections + RESERVED_DESCRIPTORS <= limit.soft) return { cap: maxConnections, openFiles: limit.soft };
  const cap = Math.max(MIN_CONNECTIONS, limit.soft - RESERVED_DESCRIPTORS);
  const hard = limit.hard === Infinity ? 'unlimited' : String(limit.hard);
  return {
    cap,
    openFiles: limit.soft,
    warning: `the open-file limit is ${limit.soft} (hard ${hard}), too low for STACK_MAX_CONNECTIONS=${maxConnections}: `
      + `at most ${cap} connections are taken; for more, raise the hard limit (ulimit -Hn, or LimitNOFILE= in the systemd unit)`,
  };
}
