# tradebot daemon image: build with the full toolchain, run on a slim non-root image.
#   docker build -t tradebot .
#   docker run -v $PWD/config/live.yaml:/config/bot.yaml:ro -v tradebot-data:/data -p 9464:9464 tradebot

FROM node:20-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary can be downloaded.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY strategies ./strategies
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The template `tradebot new strategy` copies (the bundled strategies run from dist/strategies).
COPY --from=build --chown=node:node /app/strategies/template.ts ./strategies/template.ts
COPY --chown=node:node config ./config
RUN mkdir -p /data /config && chown node:node /data /config
USER node
VOLUME ["/data"]
EXPOSE 9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TRADEBOT_METRICS_PORT || '9464') + '/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["run", "--config", "/config/bot.yaml"]
