#!/bin/sh
# The stand-in ignores the command the stack gives the upstream image: it cannot run upstream's program,
# only take its place on the network, on its volumes and under its user.
# Its pid is recorded before node starts (exec keeps it): a probe run as the container starts (the Kubernetes pod
# runner probes at once) then finds the server starting, instead of starting a second one whose pid would
# replace it (shim.sh).
# A seeded folder (prepare.mjs) must hold the file the image put there; checked first, so a probe never passes
# while a stand-in that lacks it is about to end.
if [ -f /standin/seeded ]; then
  while IFS= read -r dir; do
    [ -e "$dir/.standin-image-file" ] || { echo "stand-in: $dir lacks the files the image ships there (.standin-image-file)" >&2; exit 1; }
  done < /standin/seeded
fi
echo $$ > /tmp/standin.pid 2>/dev/null || true
exec node /standin/server.mjs
