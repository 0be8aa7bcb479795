#!/bin/sh
# The official mariadb image's healthcheck.sh, as its documentation describes the two checks the stacks use:
# --connect (a TCP connection to the running server) and --innodb_initialized (InnoDB answers), both as the
# healthcheck user the first start writes to /var/lib/mysql/.my-healthcheck.cnf.
set -eu
for check in "$@"; do
  case "$check" in
    --connect) mariadb --defaults-extra-file=/var/lib/mysql/.my-healthcheck.cnf -h 127.0.0.1 -e 'SELECT 1' >/dev/null ;;
    --innodb_initialized) mariadb --defaults-extra-file=/var/lib/mysql/.my-healthcheck.cnf -h 127.0.0.1 -sN -e "SELECT 1 FROM information_schema.ENGINES WHERE engine = 'InnoDB' AND support IN ('YES', 'DEFAULT')" | grep -q 1 ;;
    *) echo "healthcheck.sh: the stand-in knows only --connect and --innodb_initialized, not $check" >&2; exit 2 ;;
  esac
done
