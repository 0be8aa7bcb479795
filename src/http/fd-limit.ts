// The process's open-file limit, read from /proc (Linux). Node cannot raise it itself, so the service
// says at start when STACK_MAX_CONNECTIONS does not fit under it and how to raise it.
import fs from 'node:fs';

export function openFileLimit(): { soft: number; hard: number } | undefined {
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const [soft, hard] = (line?.match(/\d+|unlimited/g) ?? []).map((v) => (v === 'unlimited' ? Infinity : Number(v)));
    return soft === undefined ? undefined : { soft, hard: hard ?? soft };
  } catch {
    return undefined;
  }
}

/** A warning when connections could exhaust descriptors (files, Redis, logs need some too), else undefined. */
export function descriptorWarning(maxConnections: number, limit = openFileLimit()): string | undefined {
  if (!limit || maxConnections + 64 <= limit.soft) return undefined;
  return `the open-file limit is ${limit.soft} (hard ${limit.hard === Infinity ? 'unlimited' : limit.hard}), too low for STACK_MAX_CONNECTIONS=${maxConnections}: `
    + 'raise it (ulimit -n, or LimitNOFILE= in the systemd unit) or lower STACK_MAX_CONNECTIONS, or idle connections can starve the service';
}
