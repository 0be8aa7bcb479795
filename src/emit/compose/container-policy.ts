// What every container of a stack gets, whatever its plugin (issue 14, docs/decisions.md "Hardened and
// bounded"): all capabilities dropped but those its manifest names, no-new-privileges, a memory limit
// and a pids limit, rotating logs, and a stop grace period for what keeps data.
import type { ContainerManifest } from '../../catalogue/types.js';
import { LOG_VARIABLES } from '../../model/model.js';
import { memoryVariable } from '../../model/env-names.js';

/**
 * The log rotation of every service, written out in each (no YAML alias: parsers cap aliases at about
 * 100 per document, and a large stack passed that).
 */
export const LOGGING = {
  driver: `\${${LOG_VARIABLES.driver}:-json-file}`,
  options: { 'max-size': `\${${LOG_VARIABLES.maxSize}:-10m}`, 'max-file': `\${${LOG_VARIABLES.maxFile}:-3}` },
};

/** Processes and threads a container may hold unless its manifest says otherwise. */
export const DEFAULT_PIDS_LIMIT = 4096;

export interface PolicyInput {
  hardened: boolean;
  /** the compose value of `logging` */
  logging: unknown;
  /** a fixed memory limit instead of the plugin's (.env-overridable) one: for helper containers */
  memory?: string;
}

/** The policy keys of one container, in compose order. */
export function containerPolicy(pluginId: string, m: ContainerManifest, input: PolicyInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (input.hardened && !m.hardening.unsupported) {
    out.cap_drop = ['ALL'];
    if (m.hardening.capAdd?.length) out.cap_add = [...m.hardening.capAdd].sort();
    out.security_opt = ['no-new-privileges:true'];
  }
  out.mem_limit = input.memory ?? `\${${memoryVariable(pluginId)}:-${m.memoryLimitMB}m}`;
  out.pids_limit = m.pidsLimit ?? DEFAULT_PIDS_LIMIT;
  out.logging = input.logging;
  if (m.stop) {
    out.stop_grace_period = m.stop.gracePeriod;
    if (m.stop.signal) out.stop_signal = m.stop.signal;
  }
  return out;
}
