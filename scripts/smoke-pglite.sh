#!/usr/bin/env bash
# Starts the server on a fresh embedded (PGlite) database, checks /api/health, issues a token with the CLI while the
# server is stopped (the embedded database has one owner at a time), and lists risks through the API with it.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(mktemp -d)
port=${SMOKE_PORT:-3917}
export DATA_DIR="$data" PORT="$port" ADMIN_EMAIL=admin@smoke.example ADMIN_PASSWORD='smoke test password'
unset DATABASE_URL
cleanup() { [ -n "${server:-}" ] && kill "$server" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

start_server() {
  node_modules/.bin/bun src/server.ts >"$data/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 60); do
    curl -fs "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  cat "$data/server.log"; echo "server did not become healthy"; exit 1
}

start_server
curl -fs "http://127.0.0.1:$port/api/health" | grep -q '"status":"ok"'
echo "health ok"
kill "$server"; wait "$server" 2>/dev/null || true; server=

token=$(node_modules/.bin/bun scripts/token-create.ts --email "$ADMIN_EMAIL" --name "CI smoke" --scopes risks:read | tail -1)
start_server
body=$(curl -fs -H "Authorization: Bearer $token" "http://127.0.0.1:$port/api/v1/risks?pageSize=5")
echo "$body" | grep -q '"rows"' || { echo "unexpected: $body"; exit 1; }
echo "API round trip ok"
