#!/usr/bin/env bash
# Replays the Dockerfile on a clean checkout of the committed HEAD, without a container engine (CI has none): the
# deps stage's install (production dependencies only), the final stage's COPY lines read from the Dockerfile itself,
# then the service started as the image starts it, with the image's own HEALTHCHECK command, on the embedded
# database and on PostgreSQL (DATABASE_URL), each followed by an API round trip with a token made by the image's CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bun="$repo/node_modules/.bin/bun"
work=$(mktemp -d)
port=${IMAGE_CHECK_PORT:-3927}
db="image_check_$$"
cleanup() {
  [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true
  [ -n "${PG_URL:-}" ] && psql "$PG_URL" -qc "drop database if exists $db" >/dev/null 2>&1 || true
  [ -n "${IMAGE_CHECK_KEEP:-}" ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

echo "== clean checkout of HEAD"
mkdir -p "$work/src" "$work/deps" "$work/app"
git archive HEAD | tar -x -C "$work/src"

echo "== deps stage: production dependencies only"
cp "$work/src/package.json" "$work/src/package-lock.json" "$work/deps/"
install=$(sed -n 's/^RUN \(bun install .*\)$/\1/p' "$work/src/Dockerfile" | head -1)
[ -n "$install" ] || { echo "no bun install step in the Dockerfile"; exit 1; }
(cd "$work/deps" && PATH="$(dirname "$bun"):$PATH" bash -c "$install") >"$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
[ ! -e "$work/deps/node_modules/playwright" ] && [ ! -e "$work/deps/node_modules/@redocly" ] || { echo "a development dependency was installed"; exit 1; }

echo "== final stage: the Dockerfile's COPY lines"
cp -R "$work/deps/node_modules" "$work/app/node_modules"
awk '/^FROM /{stage++} stage==2 && /^COPY / && !/--from/' "$work/src/Dockerfile" | while read -r _ args; do
  read -ra parts <<<"$args"
  dest=${parts[-1]}
  unset 'parts[-1]'
  for source in "${parts[@]}"; do
    if [ "${dest: -1}" = / ]; then
      mkdir -p "$work/app/$dest" && cp -R "$work/src/$source" "$work/app/$dest"
    else
      mkdir -p "$(dirname "$work/app/$dest")" && cp -R "$work/src/$source" "$work/app/$dest"
    fi
  done
done
[ ! -e "$work/app/scripts/load-bundle.ts" ] || { echo "the bundle loader is in the image"; exit 1; }
health=$(sed -n 's/^HEALTHCHECK .* CMD \(bun .*\)$/\1/p' "$work/src/Dockerfile")
cmd=$(sed -n 's/^CMD \["bun", "\(.*\)"\]$/\1/p' "$work/src/Dockerfile")

start() {
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken by another process: set IMAGE_CHECK_PORT"; exit 1; fi
  (cd "$work/app" && NODE_ENV=production PORT="$port" exec "$bun" "$cmd" >"$work/server.log" 2>&1) &
  server=$!
  for _ in $(seq 1 120); do
    (cd "$work/app" && PORT="$port" PATH="$(dirname "$bun"):$PATH" bash -c "$health") && return 0
    sleep 0.5
  done
  cat "$work/server.log"; echo "the image's health check never passed"; exit 1
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=; }
round_trip() {
  local token
  token=$(cd "$work/app" && "$bun" scripts/token-create.ts --email "$ADMIN_EMAIL" --name "Image check" --scopes risks:read | tail -1)
  start
  local body
  body=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/risks?pageSize=5")
  echo "$body" | grep -q "\"rows\"" || { echo "API round trip failed: $body (token: ${token:0:8}…)"; tail -5 "$work/server.log"; exit 1; }
  stop
}

export ADMIN_EMAIL=admin@image.example ADMIN_PASSWORD='image check password'
echo "== the image on its embedded database (/data volume)"
export DATA_DIR="$work/data"
unset DATABASE_URL
start; stop
round_trip
echo "health and API round trip ok"
echo "== the image's demonstration data on a new embedded database"
(cd "$work/app" && DATA_DIR="$work/demo" "$bun" scripts/demo-data.ts >"$work/demo.log" 2>&1) || { tail -20 "$work/demo.log"; echo "db:demo failed in the image"; exit 1; }
grep -q "Administrator" "$work/demo.log" || { tail -20 "$work/demo.log"; echo "db:demo printed no administrator"; exit 1; }
echo "demonstration data ok"

echo "== the image on PostgreSQL (DATABASE_URL)"
PG_URL=${IMAGE_CHECK_PG:-postgres://postgres@127.0.0.1:5432/postgres}
if psql "$PG_URL" -qc "create database $db" >/dev/null 2>&1; then
  export DATABASE_URL="${PG_URL%/*}/$db"
  start; stop
  round_trip
  echo "health and API round trip ok"
else
  echo "PostgreSQL not reachable at $PG_URL: skipped"
fi
