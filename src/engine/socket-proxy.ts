// No container gets the raw Docker socket (it is root on the host). A service that needs the Docker API
// declares the sections it uses (dockerApi); the stack then runs one socket proxy that allows exactly
// those sections, on an internal network without published ports, and points the service's DOCKER_HOST
// at it. The proxy is tecnativa/docker-socket-proxy: HAProxy in front of the socket, one environment
// switch per API section, POST (any write) off unless asked for.
import type { ContainerPlugin } from '../catalogue/types.js';
import { imageVariable, memoryVariable } from './env-names.js';

export const SOCKET_PROXY_SERVICE = 'docker-socket-proxy';
export const SOCKET_PROXY_NETWORK = 'docker-api';
export const SOCKET_PROXY_IMAGE = 'tecnativa/docker-socket-proxy';
// Tecnativa/docker-socket-proxy@v0.4.1 (its newest tag): Dockerfile runs as root, HAProxy on 2375; the
// entrypoint writes its config to /tmp (docker-entrypoint.sh), so /tmp is the one writable place. Root owns
// the socket, so no capability is needed back under cap_drop ALL.
export const SOCKET_PROXY_TAG = 'v0.4.1';
export const DOCKER_HOST = `tcp://${SOCKET_PROXY_SERVICE}:2375`;
export const SOCKET_PROXY_MEMORY_MB = 64;

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
