#!/bin/sh
# Our own, from restic/rest-server docker/entrypoint.sh's behaviour: unless DISABLE_AUTHENTICATION is set, the
# password file exists (empty at worst, with a warning); then rest-server serves DATA_DIRECTORY with $OPTIONS.
set -e
if [ -z "${DISABLE_AUTHENTICATION:-}" ]; then
  [ -f "$PASSWORD_FILE" ] || touch "$PASSWORD_FILE"
  [ -s "$PASSWORD_FILE" ] || echo "WARNING: no user in $PASSWORD_FILE" >&2
fi
# word splitting of OPTIONS is the interface (several flags in one variable)
# shellcheck disable=SC2086
exec rest-server --path "$DATA_DIRECTORY" $OPTIONS
