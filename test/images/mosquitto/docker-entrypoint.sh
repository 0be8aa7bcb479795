#!/bin/sh
# Our own, from upstream's documented behaviour (docker/2.1-alpine/docker-entrypoint.sh): as root, /mosquitto/data
# is handed to the mosquitto user; then the command runs as given.
set -e
if [ "$(id -u)" = 0 ]; then chown -R mosquitto:mosquitto /mosquitto/data; fi
exec "$@"
