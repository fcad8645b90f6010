# One image for every engram app; the compose file picks the app with `command`.
#   docker build -t engram .
#   docker run --rm -e ENGRAM_MODE=distributed -e KAFKA_BROKERS=… engram node dist/apps/filter/main.js
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY apps ./apps
COPY libs ./libs
RUN node scripts/build.js && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    ENGRAM_MODE=distributed \
    HOST=0.0.0.0 \
    PORT=3000
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
USER node
EXPOSE 3000
# Every app answers GET /health on PORT (workers serve nothing else); node 20 has fetch, the slim image no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/apps/engram/main.js", "start"]
