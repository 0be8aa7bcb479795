#!/usr/bin/env bash
# Our own entrypoint, written from the official mariadb and mysql images' documented contract
# (hub.docker.com/_/mariadb, hub.docker.com/_/mysql): MARIADB_ROOT_PASSWORD or MYSQL_ROOT_PASSWORD (required),
# MARIADB_DATABASE/MYSQL_DATABASE, MARIADB_USER/MYSQL_USER with MARIADB_PASSWORD/MYSQL_PASSWORD (all rights on
# that database); first start initialises /var/lib/mysql and runs /docker-entrypoint-initdb.d/*.sh|*.sql, a
# later start on a kept volume skips it. Other commands run as given.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- mariadbd "$@"; fi
case "$1" in mariadbd|mysqld) ;; *) exec "$@" ;; esac
if [ "$(id -u)" = 0 ]; then
  chown -R mysql:mysql /var/lib/mysql /var/run/mysqld
  exec setpriv --reuid=mysql --regid=mysql --init-groups "$0" "$@"
fi
root_password=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}
database=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
user=${MARIADB_USER:-${MYSQL_USER:-}}
password=${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}
if [ ! -d /var/lib/mysql/mysql ]; then
  : "${root_password:?the MariaDB stand-in needs MARIADB_ROOT_PASSWORD or MYSQL_ROOT_PASSWORD}"
  mariadb-install-db --user="$(id -un)" --datadir=/var/lib/mysql --skip-test-db --auth-root-authentication-method=normal >/dev/null
  # the first-run work happens on a server without networking, as upstream's does
  mariadbd --skip-networking --socket=/var/run/mysqld/init.sock &
  pid=$!
  until mariadb-admin --socket=/var/run/mysqld/init.sock ping --silent >/dev/null 2>&1; do sleep 0.5; done
  sql() { mariadb --protocol=socket --socket=/var/run/mysqld/init.sock -uroot "$@"; }
  esc() { printf '%s' "$1" | sed "s/\\\\/\\\\\\\\/g; s/'/\\\\'/g"; }
  sql <<SQL
CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$(esc "$root_password")';
GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;
ALTER USER 'root'@'localhost' IDENTIFIED BY '$(esc "$root_password")';
CREATE USER IF NOT EXISTS 'healthcheck'@'localhost' IDENTIFIED BY 'healthcheck';
CREATE USER IF NOT EXISTS 'healthcheck'@'127.0.0.1' IDENTIFIED BY 'healthcheck';
CREATE USER IF NOT EXISTS 'healthcheck'@'::1' IDENTIFIED BY 'healthcheck';
GRANT USAGE ON *.* TO 'healthcheck'@'localhost', 'healthcheck'@'127.0.0.1', 'healthcheck'@'::1';
SQL
  printf '[mariadb-client]\nuser=healthcheck\npassword=healthcheck\nprotocol=tcp\n' > /var/lib/mysql/.my-healthcheck.cnf
  if [ -n "$database" ]; then sql -e "CREATE DATABASE IF NOT EXISTS \`$database\`"; fi
  if [ -n "$user" ] && [ -n "$password" ]; then
    sql -e "CREATE USER '$user'@'%' IDENTIFIED BY '$(esc "$password")'"
    if [ -n "$database" ]; then sql -e "GRANT ALL ON \`$database\`.* TO '$user'@'%'"; fi
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; sql -p"$root_password" ${database:+"$database"} < "$f" ;;
      *) ;;
    esac
  done
  kill "$pid" && wait "$pid" || true
  echo "mariadb stand-in: database initialised"
fi
exec mariadbd "${@:2}"
