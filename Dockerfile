# Production image: Bun runtime, the service and its committed migrations. The bundle loader is not included
# (it runs from a source checkout of the same version, per the specification). The same Bun as package.json's
# `bun` dependency; scripts/image-check.sh replays these steps on a clean checkout in CI (no container engine there).
FROM oven/bun:1.4-debian AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile || bun install --production

FROM oven/bun:1.4-debian
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY db ./db
COPY views ./views
COPY static ./static
# Only the maintenance commands run on the server; the bundle loader (scripts/load-bundle.ts, scripts/bundle/) stays out.
COPY scripts/cli.ts scripts/token-create.ts scripts/audit-verify.ts scripts/row-counts-recount.ts scripts/evidence-verify.ts ./scripts/
# Demonstration data, for trying the image on a new, empty database (docs/demo-data.md).
COPY scripts/demo-data.ts ./scripts/
COPY scripts/demo ./scripts/demo
RUN mkdir -p /data && chown bun:bun /data
# Not root: the service owns only its data folder.
USER bun
# The embedded database (without DATABASE_URL) and evidence files (without S3_BUCKET) live here.
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD bun -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["bun", "src/server.ts"]
