// The Docker socket proxy's Compose definition, from its facts in the model (model/socket-proxy.ts).
import type { ContainerPlugin } from '../../catalogue/types.js';
import { imageVariable, memoryVariable } from '../../model/env-names.js';
import { SOCKET_PROXY_IMAGE, SOCKET_PROXY_MEMORY_MB, SOCKET_PROXY_NETWORK, SOCKET_PROXY_SERVICE, SOCKET_PROXY_TAG } from '../../model/socket-proxy.js';

/** The proxy's compose definition for the union of what its users need, or undefined without users. */
export function socketProxyDefinition(users: readonly ContainerPlugin[], logging: unknown, hardened: boolean): Record<string, unknown> | undefined {
  if (!users.length) return undefined;
  const sections = [...new Set(users.flatMap((u) => u.manifest.dockerApi!.sections))].sort();
  const environment: Record<string, string> = Object.fromEntries(sections.map((s) => [s, '1']));
  environment.POST = users.some((u) => u.manifest.dockerApi!.write) ? '1' : '0';
  // clients connect over IPv4 on the stack's bridge; binding [::] fails on hosts booted without IPv6
  environment.DISABLE_IPV6 = '1';
  return {
    image: `\${${imageVariable(SOCKET_PROXY_SERVICE)}:-${SOCKET_PROXY_IMAGE}:${SOCKET_PROXY_TAG}}`,
    restart: 'unless-stopped',
    environment,
    volumes: ['/var/run/docker.sock:/var/run/docker.sock:ro'],
    ...(hardened ? { cap_drop: ['ALL'], security_opt: ['no-new-privileges:true'] } : {}),
    read_only: true,
    tmpfs: ['/tmp'],
    mem_limit: `\${${memoryVariable(SOCKET_PROXY_SERVICE)}:-${SOCKET_PROXY_MEMORY_MB}m}`,
    pids_limit: 256,
    logging,
    networks: [SOCKET_PROXY_NETWORK],
  };
}
