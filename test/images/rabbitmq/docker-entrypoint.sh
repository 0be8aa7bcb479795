#!/bin/sh
# Our own, from docker-library/rabbitmq 4.2/ubuntu/docker-entrypoint.sh's behaviour: started as root it hands
# /var/lib/rabbitmq to rabbitmq and drops to it; as any other user (--user) it runs the command as given.
set -e
if [ "$(id -u)" = 0 ]; then
  find /var/lib/rabbitmq \! -user rabbitmq -exec chown rabbitmq '{}' +
  exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups "$0" "$@"
fi
exec "$@"
