# syntax=docker/dockerfile:1
# Node 26 is the current LTS (Node 20 reached its end of life on 2026-04-30); CI runs on it the tests of what differs
# between runtimes (.ci/lts-files, .ci/lts-test).
# Build: compile TypeScript, bundle the server into one file (scripts/bundle.mjs) and build the native modules (SQLite
# driver, RE2), then keep production dependencies only: the bundle leaves native and lazily loaded packages in node_modules.
FROM node:26-trixie-slim AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Scripts wait until the sources are in: `prepare` builds dist/ from them.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY types types
COPY src src
COPY plugins plugins
COPY bees bees
COPY scripts/bundle.mjs scripts/bundle-start.mjs scripts/
RUN npm rebuild better-sqlite3 re2 \
  && npm run build \
  && npm prune --omit=dev

# Run: no compiler, no dev dependencies, not root.
FROM node:26-trixie-slim
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_URL=/data/apiary.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
RUN mkdir -p /data /app/code-cache && chown node:node /data /app/code-cache && chmod 700 /app/code-cache
USER node
# V8's code cache of the bundle (docs/operators/deployment.md), written here by one start with CMD's node flags (the
# cache is keyed on them), so that every container's first start reads it instead of compiling the bundle.
ENV CODE_CACHE_DIR=/app/code-cache
RUN DATABASE_URL=/tmp/warm-up.db node --max-semi-space-size=16 --max-old-space-size=512 dist/bundle/server.js & server=$!; \
  for attempt in $(seq 1 150); do \
    node -e "fetch('http://127.0.0.1:3000/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))" && break; \
    sleep 0.2; \
  done; \
  kill -TERM "$server"; wait "$server"; rm -f /tmp/warm-up.db*; \
  test -n "$(ls /app/code-cache)"
# The embedded SQLite ledger lives here; mount a volume so wallets survive the container.
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=512", "dist/bundle/server.js"]
