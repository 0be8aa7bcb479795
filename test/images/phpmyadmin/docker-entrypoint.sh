#!/bin/bash
# Our own, from phpmyadmin/docker@5.2.3.1 apache/docker-entrypoint.sh's behaviour: before Apache starts, a
# random blowfish secret in /etc/phpmyadmin/config.secret.inc.php (once; group www-data) and an empty
# config.user.inc.php; PMA_CONFIG_BASE64 / PMA_USER_CONFIG_BASE64 replace the config files; <NAME>_FILE reads a
# secret from a file; then the command runs. Not here: APACHE_PORT and HIDE_PHP_VERSION.
if [[ "$1" == apache2* ]]; then
  if [ ! -f /etc/phpmyadmin/config.secret.inc.php ]; then
    secret=$(tr -dc 'A-Za-z0-9' < /dev/urandom | head -c 32)
    printf "<?php\n\$cfg['blowfish_secret'] = '%s';\n" "$secret" > /etc/phpmyadmin/config.secret.inc.php
  fi
  chgrp www-data /etc/phpmyadmin/config.secret.inc.php
  [ -f /etc/phpmyadmin/config.user.inc.php ] || touch /etc/phpmyadmin/config.user.inc.php
fi
if [ -n "$PMA_CONFIG_BASE64" ]; then printf '%s' "$PMA_CONFIG_BASE64" | base64 -d > /etc/phpmyadmin/config.inc.php; fi
if [ -n "$PMA_USER_CONFIG_BASE64" ]; then printf '%s' "$PMA_USER_CONFIG_BASE64" | base64 -d > /etc/phpmyadmin/config.user.inc.php; fi
for name in PMA_USER PMA_PASSWORD MYSQL_ROOT_PASSWORD MYSQL_PASSWORD PMA_HOSTS PMA_HOST PMA_CONTROLHOST PMA_CONTROLUSER PMA_CONTROLPASS; do
  file="${name}_FILE"
  if [ -n "${!file}" ]; then export "$name"="$(cat "${!file}")"; fi
done
exec "$@"
