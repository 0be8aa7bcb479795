#!/bin/sh
# Ours, after TimWolla/docker-adminer@7088bf0 5/entrypoint.sh: on the first start only, ADMINER_DESIGN links
# designs/<name>/adminer.css into the served folder (later edits of adminer.css are kept); then the command.
# Upstream's ADMINER_PLUGINS (plugin files written by its plugin-loader.php) is left out: the plugin never sets it.
set -e
if [ -n "${ADMINER_DESIGN:-}" ] && [ ! -e .adminer-init ]; then
  ln -sf "designs/$ADMINER_DESIGN/adminer.css" .
fi
touch .adminer-init 2>/dev/null || true
exec "$@"
