#!/bin/sh
# The upstream image's command (`ollama serve`) is ignored: the stub server takes Ollama's port on every
# interface, as `ollama serve` does in the official image (OLLAMA_HOST=0.0.0.0:11434).
HOST=0.0.0.0 PORT=11434 exec node /stub-model/server.mjs
