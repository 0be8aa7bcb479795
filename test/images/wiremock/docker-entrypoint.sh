#!/bin/bash
# Our own, from wiremock/wiremock-docker@3.13.2-3 docker-entrypoint.sh's behaviour: with no command, or options
# only, WireMock's main class runs with $JAVA_OPTS and the jars of /var/wiremock/lib and /var/wiremock/extensions;
# with `uid` set, /home/wiremock is handed to that uid and the command runs as it (setpriv); $WIREMOCK_OPTIONS
# is appended to the command split into words.
set -e
if [ -z "$1" ] || [ "${1:0:1}" = "-" ]; then
  # shellcheck disable=SC2086
  set -- java $JAVA_OPTS -cp '/var/wiremock/lib/*:/var/wiremock/extensions/*' wiremock.Run "$@"
fi
if [ -n "$uid" ]; then
  chown -R "$uid:$uid" /home/wiremock
  set -- setpriv --reuid="$uid" --regid="$uid" --init-groups "$@"
fi
# shellcheck disable=SC2086
exec "$@" $WIREMOCK_OPTIONS
