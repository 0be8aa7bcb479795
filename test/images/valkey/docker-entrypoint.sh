#!/bin/sh
# Our own entrypoint, written from valkey-io/valkey-container docker-entrypoint.sh's documented behaviour: a first
# argument that is a flag means the server; started as root with valkey-server as the command, it hands every file
# under /data to valkey and drops to it with its groups cleared; otherwise the command runs as given. Files it makes
# are private (umask 0077).
set -e
case "${1:-}" in -*|*.conf) set -- valkey-server "$@" ;; esac
if [ "${1:-}" = valkey-server ] && [ "$(id -u)" = 0 ]; then
  find . \! -user valkey -exec chown valkey '{}' +
  exec setpriv --reuid=valkey --regid=valkey --clear-groups -- "$0" "$@"
fi
umask 0077
exec "$@"
