#!/usr/bin/env bash
# Our own entrypoint, written from the official postgres image's documented contract (hub.docker.com/_/postgres):
# POSTGRES_PASSWORD (required), POSTGRES_USER (default postgres), POSTGRES_DB (default the user),
# POSTGRES_INITDB_ARGS, PGDATA; first start runs initdb and /docker-entrypoint-initdb.d/*.sh|*.sql; a later
# start on a kept volume skips all of it. Any other command (psql, sh ...) runs as given. POSTGRES_PASSWORD,
# POSTGRES_USER and POSTGRES_DB may come from the file a *_FILE variable names instead (the documented "Docker
# Secrets" form, for Swarm secrets); both at once is an error, as upstream's.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi

from_file() {
  local file="${1}_FILE"
  [ -n "${!file:-}" ] || return 0
  if [ -n "${!1:-}" ]; then echo "postgres stand-in: both $1 and $file are set (they are exclusive)" >&2; exit 1; fi
  export "$1=$(< "${!file}")"
  unset "$file"
}
for v in POSTGRES_PASSWORD POSTGRES_USER POSTGRES_DB; do from_file "$v"; done

if [ "$(id -u)" = 0 ]; then
  # as root: own PGDATA, then run as postgres (the image's gosu step)
  mkdir -p "$PGDATA" && chmod 700 "$PGDATA" && chown -R postgres:postgres "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
mkdir -p "$PGDATA" && chmod 700 "$PGDATA" 2>/dev/null || true
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?the postgres stand-in needs POSTGRES_PASSWORD, as the official image does}"
  user=${POSTGRES_USER:-postgres} db=${POSTGRES_DB:-${POSTGRES_USER:-postgres}}
  # shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words, as upstream documents it
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust --auth-host=scram-sha-256 ${POSTGRES_INITDB_ARGS:-} >/dev/null
  printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
  # the first-run work happens on a server that listens on the Unix socket only, as upstream's does
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [ "$db" != postgres ]; then psql -v ON_ERROR_STOP=1 -U "$user" -d postgres -q -c "CREATE DATABASE \"$db\""; fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; psql -v ON_ERROR_STOP=1 -U "$user" -d "$db" -f "$f" ;;
      *) ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres stand-in: database initialised"
fi
exec postgres -c listen_addresses='*' "${@:2}"
