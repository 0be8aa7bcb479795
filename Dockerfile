# syntax=docker/dockerfile:1
# The Stackwright service as an image: built in one stage, run from a second with production
# dependencies only, as the unprivileged `node` user (uid 1000). docs/deploy.md explains each setting.
# Node 24 LTS, pinned by tag and by the digest of its multi-arch index (amd64, arm64).
ARG NODE_IMAGE=node:24.21.0-trixie-slim@sha256:8ec5d7557396cfe32d21c3f9c13072355ceab22b584578ca4bb28af31120cffe

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-validators.mjs scripts/
COPY schemas schemas
COPY src src
# compile, then keep only what the service needs at run time
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --loglevel=error

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    HOST=0.0.0.0 \
    PORT=8080 \
    STACK_CATALOGUE_CACHE=/tmp/stackwright-catalogue.json
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY schemas schemas
COPY templates templates
COPY web web
COPY catalogue catalogue
# plugins/ is where operators drop catalogue entries: mount a folder over it (or STACK_PLUGINS_DIR);
# the service reloads the catalogue when it changes
COPY plugins plugins
# the `stackwright` command on PATH (docs/upgrade.md), as npm links a package's bin
RUN chmod 755 dist/cli/main.js && ln -s /app/dist/cli/main.js /usr/local/bin/stackwright
USER node
EXPOSE 8080
# /readyz: never rate-limited, answers 503 while the service drains for shutdown
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
# a 16 MB young-generation semi-space: most large renders run without a collection (docs/configuration.md)
CMD ["node", "--max-semi-space-size=16", "dist/main.js"]
