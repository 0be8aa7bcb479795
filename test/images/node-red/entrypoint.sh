#!/bin/sh
# Our own, from node-red/node-red-docker scripts/entrypoint.sh's behaviour: Node-RED with its user folder in /data,
# the flows file from $FLOWS and the container's command as further arguments; a stop signal reaches it.
# shellcheck disable=SC2086
exec /usr/local/bin/node $NODE_OPTIONS node_modules/node-red/red.js --userDir /data $FLOWS "$@"
