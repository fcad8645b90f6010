#!/usr/bin/env bash
# The OpenAPI contract checked against the server: schemathesis (pinned below) generates valid and
# invalid requests from the committed docs/openapi.json and runs every check against an embedded
# engram started here on a fresh data directory and a free loopback port, with API keys configured.
# Any failure (a 500, a status code or a response the document does not declare) exits non-zero.
#
# Bounded: ENGRAM_SCHEMATHESIS_MAX_EXAMPLES (default 100) cases per operation and phase, one
# worker per core, a fixed seed (ENGRAM_SCHEMATHESIS_SEED, default 1): two to three minutes on 2 cores.
# The venv lives in the git-ignored .cache/schemathesis/py3.N and is reused. Extra schemathesis
# options go after the script's name (e.g. --max-failures 1).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
max_examples="${ENGRAM_SCHEMATHESIS_MAX_EXAMPLES:-100}"
# The newest Python at hand: 3.11's ast.parse fails intermittently in schemathesis's worker threads
# ("AST constructor recursion depth mismatch").
python="${ENGRAM_SCHEMATHESIS_PYTHON:-}"
if [[ -z "$python" ]]; then
  # pyenv keeps versions it does not put on PATH: its newer ones count too.
  for candidate in python3.13 python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import venv' 2>/dev/null; then python="$candidate"; break; fi
  done
fi
[[ -n "$python" ]] || { echo "schemathesis: no python3 with venv found (set ENGRAM_SCHEMATHESIS_PYTHON)" >&2; exit 1; }
venv=".cache/schemathesis/$("$python" -c 'import sys; print(f"py{sys.version_info[0]}.{sys.version_info[1]}")')"

if [[ "$("$venv/bin/st" --version 2>/dev/null || true)" != *"version $SCHEMATHESIS_VERSION"* ]]; then
  echo "schemathesis: installing $SCHEMATHESIS_VERSION into $venv ($python)" >&2
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

data_dir="$(mktemp -d "${TMPDIR:-/tmp}/engram-schemathesis-XXXXXX")"
report_dir="${ENGRAM_SCHEMATHESIS_REPORT_DIR:-.cache/schemathesis-report}"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
tenant_key="st-tenant-key"
admin_key="st-admin-key"
url="http://127.0.0.1:$port"
server_pid=""

stop() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$data_dir"
}
trap stop EXIT

# A tenant key and an admin key (test/contract/schemathesis.toml says which operation sends which).
# Webhooks it registers may point at loopback only: whatever URL it generates, deliveries stay on this machine.
HOST=127.0.0.1 PORT="$port" ENGRAM_DATA_DIR="$data_dir" LOG_LEVEL=error \
  ENGRAM_API_KEYS="$tenant_key=schemathesis" ENGRAM_ADMIN_KEY="$admin_key" ENGRAM_AFTER_TIMEOUT_MS=1000 ENGRAM_REBUILD_GRACE_MS=0 \
  ENGRAM_WEBHOOK_ALLOWED_HOSTS=127.0.0.1 \
  node bin/engram.js start >"$data_dir.log" 2>&1 &
server_pid=$!

for _ in $(seq 1 300); do
  if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$data_dir.log" >&2; echo "engram did not start" >&2; exit 1; fi
  sleep 0.2
done
curl -fsS "$url/health" >/dev/null

status=0
ENGRAM_ST_TENANT_KEY="$tenant_key" ENGRAM_ST_ADMIN_KEY="$admin_key" \
"$venv/bin/st" --config-file test/contract/schemathesis.toml run docs/openapi.json \
  --url "$url" \
  --checks all \
  --max-examples "$max_examples" \
  --workers "$(nproc)" \
  --seed "${ENGRAM_SCHEMATHESIS_SEED:-1}" \
  --report junit --report-dir "$report_dir" \
  --no-color \
  "$@" || status=$?

if [[ $status -ne 0 ]]; then
  echo "schemathesis found failures (server log: $data_dir.log, report: $report_dir)" >&2
else
  rm -f "$data_dir.log"
fi
exit "$status"
