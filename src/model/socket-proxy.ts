// No container gets the raw Docker socket (it is root on the host). A service that needs the Docker API
// declares the sections it uses (dockerApi); the stack then runs one socket proxy that allows exactly
// those sections, on an internal network without published ports, and points the service's DOCKER_HOST
// at it. The proxy is tecnativa/docker-socket-proxy: HAProxy in front of the socket, one environment
// switch per API section, POST (any write) off unless asked for.
// This module holds the proxy's fixed facts, which the resolver (memory) and the model read; each
// deployment target writes its own definition from them (emit/compose/socket-proxy.ts).
export const SOCKET_PROXY_SERVICE = 'docker-socket-proxy';
export const SOCKET_PROXY_NETWORK = 'docker-api';
export const SOCKET_PROXY_IMAGE = 'tecnativa/docker-socket-proxy';
// Tecnativa/docker-socket-proxy@v0.4.1 (its newest tag): Dockerfile runs as root, HAProxy on 2375; the
// entrypoint writes its config to /tmp (docker-entrypoint.sh), so /tmp is the one writable place. Root owns
// the socket, so no capability is needed back under cap_drop ALL.
export const SOCKET_PROXY_TAG = 'v0.4.1';
export const DOCKER_HOST = `tcp://${SOCKET_PROXY_SERVICE}:2375`;
export const SOCKET_PROXY_MEMORY_MB = 64;
