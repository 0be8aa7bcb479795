#!/bin/sh
# Our own, from n8n-io/n8n docker/images/n8n/docker-entrypoint.sh's behaviour: n8n with the container's arguments,
# or plain `n8n` without any (its /opt/custom-certificates and N8N_ENABLE_JEMALLOC steps are left out).
if [ "$#" -gt 0 ]; then exec n8n "$@"; fi
exec n8n
