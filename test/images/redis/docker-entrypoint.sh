#!/bin/sh
# Our own entrypoint, written from the official redis image's documented behaviour: a first argument that is a
# flag means the server; started as root to run the server, it hands /data to the redis user (uid 999) and drops
# to it; as any other user (--user) it runs the command as it is. Files it makes are private (umask 0077).
set -e
case "${1:-}" in -*) set -- redis-server "$@" ;; esac
if [ "${1:-}" = redis-server ] && [ "$(id -u)" = 0 ]; then
  find /data \! -user redis -exec chown redis '{}' +
  exec setpriv --reuid=redis --regid=redis --init-groups "$0" "$@"
fi
umask 0077
exec "$@"
