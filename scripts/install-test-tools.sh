#!/usr/bin/env bash
# Installs the real tools the test suite checks generated bundles with, idempotently:
#   Debian: docker-compose (validates compose files without a daemon), caddy, nginx-light, shellcheck,
#           redis-server (shared rate limits), util-linux (unshare, for nginx -t in a private namespace),
#           postgresql and mariadb-server (the generated database setup scripts run against real servers),
#           chromium (test/web drives the page in it through playwright-core; no browser download)
#   npm, into $VALIDATORS_PREFIX (default /tmp/validators): dclint, yaml, js-yaml, dotenv-linter,
#           typescript + the SchemaStore Traefik types, web-tree-sitter + tree-sitter-powershell
# It delegates to the team's shared validator installer (../shared/validators), which the tests
# also use to run the checks; STACK_VALIDATORS_DIR points elsewhere if shared/ lives elsewhere.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
validators="${STACK_VALIDATORS_DIR:-$here/../shared/validators}"
if [ ! -f "$validators/install.sh" ]; then
  echo "install-test-tools: no validators at $validators (set STACK_VALIDATORS_DIR)" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO env VALIDATORS_PREFIX="${VALIDATORS_PREFIX:-/tmp/validators}" bash "$validators/install.sh"
# PostgreSQL server binaries: the generated database setup script runs against a real server in the tests
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi
# MariaDB: the generated MySQL database setup script runs against a real MySQL-compatible server
if [ ! -x /usr/sbin/mariadbd ]; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >/dev/null
fi
# Chromium: the web page tests (test/web) launch Debian's /usr/bin/chromium with playwright-core
if ! command -v chromium >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq chromium >/dev/null
fi
