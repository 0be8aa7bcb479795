#!/usr/bin/env bash
# Our own entrypoint, written from the official mariadb and mysql images' documented contract
# (hub.docker.com/_/mariadb, hub.docker.com/_/mysql): MARIADB_ROOT_PASSWORD or MYSQL_ROOT_PASSWORD (required),
# MARIADB_DATABASE/MYSQL_DATABASE, MARIADB_USER/MYSQL_USER with MARIADB_PASSWORD/MYSQL_PASSWORD (all rights on
# that database); first start initialises /var/lib/mysql and runs /docker-entrypoint-initdb.d/*.sh|*.sql, a
# later start on a kept volume skips it. Other commands run as given. Each of those variables may come from the
# file a *_FILE variable names instead (the documented "Docker Secrets" form, for Swarm secrets); both at once is an
# error, as upstream's.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- mariadbd "$@"; fi
case "$1" in mariadbd|mysqld) ;; *) exec "$@" ;; esac
from_file() {
  local file="${1}_FILE"
  [ -n "${!file:-}" ] || return 0
  if [ -n "${!1:-}" ]; then echo "MariaDB stand-in: both $1 and $file are set (they are exclusive)" >&2; exit 1; fi
  export "$1=$(< "${!file}")"
  unset "$file"
}
for v in ROOT_PASSWORD DATABASE USER PASSWORD; do from_file "MARIADB_$v"; from_file "MYSQL_$v"; done
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
  # the bootstrap makes an account named as the Unix user running it (unix_socket authentication), which the
  # first-run batch uses; root@localhost gets its password as the batch's last step
  mariadb-install-db --user="$(id -un)" --datadir=/var/lib/mysql --skip-test-db \
    --auth-root-authentication-method=socket --auth-root-socket-user="$(id -un)" >/dev/null
  # the first-run work happens on a server without networking, as upstream's does
  mariadbd --skip-networking --socket=/var/run/mysqld/init.sock &
  pid=$!
  until mariadb-admin --socket=/var/run/mysqld/init.sock ping --silent >/dev/null 2>&1; do sleep 0.5; done
  sql_user=$(id -un) root_pw=''
  sql() { mariadb --protocol=socket --socket=/var/run/mysqld/init.sock -u"$sql_user" ${root_pw:+"-p$root_pw"} "$@"; }
  esc() { printf '%s' "$1" | sed "s/\\\\/\\\\\\\\/g; s/'/\\\\'/g"; }
  {
    echo "CREATE USER IF NOT EXISTS 'root'@'%' IDENTIFIED BY '$(esc "$root_password")';"
    echo "GRANT ALL ON *.* TO 'root'@'%' WITH GRANT OPTION;"
    echo "CREATE USER IF NOT EXISTS 'healthcheck'@'localhost' IDENTIFIED BY 'healthcheck';"
    echo "CREATE USER IF NOT EXISTS 'healthcheck'@'127.0.0.1' IDENTIFIED BY 'healthcheck';"
    echo "CREATE USER IF NOT EXISTS 'healthcheck'@'::1' IDENTIFIED BY 'healthcheck';"
    echo "GRANT USAGE ON *.* TO 'healthcheck'@'localhost', 'healthcheck'@'127.0.0.1', 'healthcheck'@'::1';"
    if [ -n "$database" ]; then echo "CREATE DATABASE IF NOT EXISTS \`$database\`;"; fi
    if [ -n "$user" ] && [ -n "$password" ]; then
      echo "CREATE USER '$user'@'%' IDENTIFIED BY '$(esc "$password")';"
      if [ -n "$database" ]; then echo "GRANT ALL ON \`$database\`.* TO '$user'@'%';"; fi
    fi
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY '$(esc "$root_password")';"
  } | sql
  sql_user=root root_pw=$root_password
  printf '[mariadb-client]\nuser=healthcheck\npassword=healthcheck\nprotocol=tcp\n' > /var/lib/mysql/.my-healthcheck.cnf
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; . "$f" ;;
      *.sql) echo "running $f"; sql ${database:+"$database"} < "$f" ;;
      *) ;;
    esac
  done
  kill "$pid" && wait "$pid" || true
  echo "mariadb stand-in: database initialised"
fi
exec mariadbd "${@:2}"
