#!/bin/sh
# Our own entrypoint, written from the official redis and valkey images' documented behaviour: a first argument
# that is a flag means the server; started as root to run the server, it hands /data to the image's user (redis,
# or valkey for valkey-server; uid 999 in both) and drops to it; as any other user (--user) it runs the command
# as it is. Files it makes are private (umask 0077).
set -e
case "${1:-}" in -*) set -- redis-server "$@" ;; esac
case "${1:-}" in redis-server) user=redis ;; valkey-server) user=valkey ;; *) user='' ;; esac
if [ -n "$user" ] && [ "$(id -u)" = 0 ]; then
  find /data \! -user "$user" -exec chown "$user" '{}' +
  exec setpriv --reuid="$user" --regid=redis --init-groups "$0" "$@"
fi
umask 0077
exec "$@"
