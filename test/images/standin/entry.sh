#!/bin/sh
# The stand-in ignores the command the stack gives the upstream image: it cannot run upstream's program,
# only take its place on the network, on its volumes and under its user.
exec node /standin/server.mjs
