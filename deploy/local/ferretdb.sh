#!/usr/bin/env bash
# Local MongoDB-wire-protocol server for tests, without Docker: FerretDB v1.24.2
# (single Go binary), built from the Go module proxy into the git-ignored cache.
# Backend: SQLite by default (no PostgreSQL needed; what test:infra and CI use),
# or PostgreSQL with FERRETDB_BACKEND=postgresql (start deploy/local/postgres.sh
# first): FerretDB's main backend, which pushes filters down and uses indexes.
#
#   deploy/local/ferretdb.sh fetch|start|stop|status|reset
#
# Connection string once started: mongodb://127.0.0.1:${MONGO_PORT:-27017}/
# (no auth, no TLS, no replica set).
#
# Environment (all optional):
#   ENGRAM_INFRA_CACHE       cache root                 (default: <repo>/.cache/infra, git-ignored)
#   MONGO_PORT               listen port on 127.0.0.1   (default: 27017)
#   FERRETDB_START_TIMEOUT   seconds to wait for a ping (default: 30)
#   FERRETDB_LOG_LEVEL       DEBUG|INFO|WARN|ERROR      (default: WARN; INFO logs every connection)
#   FERRETDB_BACKEND         sqlite|postgresql          (default: sqlite)
#   FERRETDB_POSTGRESQL_URL  PostgreSQL URL of the postgresql backend
#                            (default: postgres://postgres@127.0.0.1:${PG_PORT:-5432}/ferretdb?pool_max_conns=180,
#                            i.e. deploy/local/postgres.sh; FerretDB's own pool default of 50 hangs
#                            under engram's load, see deploy/README.md)
#   FERRETDB_DEBUG_ADDR      host:port of FerretDB's debug listener (pprof goroutine dumps, metrics)
#                            (default: none; e.g. 127.0.0.1:8088 to see where a hung server waits)
#   FERRETDB_RUN_DIR         data, state, log and pid file (default: $ENGRAM_INFRA_CACHE/run/ferretdb);
#                            a second server (other backend) needs its own, and its own MONGO_PORT
#
# Needs Go >= 1.24 on PATH for the one-time build (~2-3 min cold on 2 cores);
# the module and build caches live under $CACHE/go so rebuilds are cheap.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
NAME=ferretdb.sh
STOP_GRACE=10   # seconds between SIGTERM and SIGKILL
# shellcheck source=deploy/local/lib.sh
source "$HERE/lib.sh"

FERRETDB_MODULE="github.com/FerretDB/FerretDB"
FERRETDB_VERSION="v1.24.2"

CACHE="${ENGRAM_INFRA_CACHE:-$REPO_ROOT/.cache/infra}"
BIN="$CACHE/bin/ferretdb"
GOCACHE_DIR="$CACHE/go"
SRC="$CACHE/src/ferretdb-$FERRETDB_VERSION"
RUN="${FERRETDB_RUN_DIR:-$CACHE/run/ferretdb}"
DATA="$RUN/data"
STATE="$RUN/state"
LOGFILE="$RUN/ferretdb.log"
PIDFILE="$RUN/ferretdb.pid"

HOST=127.0.0.1
PORT="${MONGO_PORT:-27017}"
START_TIMEOUT="${FERRETDB_START_TIMEOUT:-30}"
LOG_LEVEL="${FERRETDB_LOG_LEVEL:-WARN}"
BACKEND="${FERRETDB_BACKEND:-sqlite}"
PG_URL="${FERRETDB_POSTGRESQL_URL:-postgres://postgres@127.0.0.1:${PG_PORT:-5432}/ferretdb?pool_max_conns=180}"
BACKENDFILE="$RUN/backend"
PORTFILE="$RUN/port"

# ---------------------------------------------------------------- fetch

binary_ok() {
  # Capture first, then match: `--version | grep -q` under pipefail fails at
  # random when grep exits before the binary has written its last line (SIGPIPE).
  [[ -x "$BIN" ]] || return 1
  local out; out="$("$BIN" --version 2>/dev/null)" || return 1
  grep -qx "version: $FERRETDB_VERSION" <<<"$out"
}

# Go environment for the build: caches inside $CACHE (survive between sessions
# with the work tree), never touching the repo's own go.mod/go.work if any.
go_env() {
  export GOMODCACHE="$GOCACHE_DIR/mod" GOCACHE="$GOCACHE_DIR/build"
  export GOWORK=off GOFLAGS="-buildvcs=false -mod=readonly" CGO_ENABLED=0
}

cmd_fetch() {
  if binary_ok; then return 0; fi
  command -v go >/dev/null || die "go not found (Go >= 1.24 needed once to build FerretDB)"
  mkdir -p "$CACHE/bin" "$CACHE/src" "$GOCACHE_DIR"
  exec 8>"$CACHE/.ferretdb-fetch.lock"; flock 8
  if binary_ok; then return 0; fi   # another caller built it while we waited
  go_env
  local flog="$CACHE/ferretdb-fetch.log" t0=$SECONDS
  : >"$flog"
  log "building FerretDB $FERRETDB_VERSION into $BIN (first time ~2-3 min) ..."

  # `go install module@version` builds, but the binary panics at startup: the
  # module zip lacks the generated build/version/version.txt. So: download the
  # module, build a writable copy with that file added.
  local moddir
  # run outside any module so `go mod download` cannot touch a go.mod
  if ! moddir="$(cd "${TMPDIR:-/tmp}" && go mod download -json "$FERRETDB_MODULE@$FERRETDB_VERSION" 2>>"$flog" |
                  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')" || [[ -z "$moddir" ]]; then
    tail -n 30 "$flog" >&2; die "go mod download failed (log: $flog)"
  fi
  rm -rf "$SRC"
  cp -r "$moddir" "$SRC"
  chmod -R u+w "$SRC"
  echo "$FERRETDB_VERSION" >"$SRC/build/version/version.txt"
  echo "engram-local" >"$SRC/build/version/package.txt"

  local tmpbin="$BIN.tmp.$$"
  if ! (cd "$SRC" && go build -trimpath -ldflags="-s -w" -o "$tmpbin" ./cmd/ferretdb) >>"$flog" 2>&1; then
    tail -n 30 "$flog" >&2; rm -f "$tmpbin"; die "go build failed (log: $flog)"
  fi
  mv -f "$tmpbin" "$BIN"
  binary_ok || die "built binary does not report $FERRETDB_VERSION"
  log "built $BIN ($(du -h "$BIN" | cut -f1)) in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- helpers

# A real wire-protocol round trip: OP_MSG {ping: 1, $db: "admin"}, then look
# for `ok: 1.0` (double) or `ok: 1` (int32) in the reply.
ping_ok() {
  local hex
  # shellcheck disable=SC2016  # $0/$1 belong to the inner shell
  hex="$(timeout 3 bash -c '
      exec 3<>"/dev/tcp/$0/$1" || exit 1
      printf "\x33\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x1e\x00\x00\x00\x10ping\x00\x01\x00\x00\x00\x02\$db\x00\x06\x00\x00\x00admin\x00\x00" >&3
      dd bs=65536 count=1 <&3 2>/dev/null | od -An -v -tx1 | tr -d " \n"
    ' "$HOST" "$PORT" 2>/dev/null)" || return 1
  [[ "$hex" == *016f6b00000000000000f03f* || "$hex" == *106f6b0001000000* ]]
}

# The pid is ours only if it is alive AND is our binary with our state dir
# (both backends; the sqlite one also serves our data dir): guards against a
# stale pid file whose pid was reused by something else.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local cmdline; cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == "$BIN "* && "$cmdline" == *" --state-dir=$STATE "* ]] || return 1
  [[ "$cmdline" == *" --handler=postgresql "* || "$cmdline" == *"--sqlite-url=file:$DATA/"* ]] || return 1
  echo "$pid"
}

# The backend a running server was started with (sqlite if not recorded).
running_backend() { if [[ -f "$BACKENDFILE" ]]; then cat "$BACKENDFILE"; else echo sqlite; fi; }

log_tail() {
  log "---- last lines of $LOGFILE ----"
  tail -n 30 "$LOGFILE" >&2 2>/dev/null || true
}

# ---------------------------------------------------------------- commands

cmd_start() {
  cmd_fetch
  lock
  local pid
  if pid="$(running_pid)"; then
    [[ "$(running_backend)" == "$BACKEND" ]] ||
      die "already running with the $(running_backend) backend (pid $pid); stop it first or use another FERRETDB_RUN_DIR"
    if ping_ok; then log "already running (pid $pid, $HOST:$PORT, $BACKEND)"; return 0; fi
    die "pid $pid is alive but $HOST:$PORT does not answer a ping (different MONGO_PORT?); try: $0 stop"
  fi
  rm -f "$PIDFILE"
  port_open "$PORT" && die "$HOST:$PORT is already in use by another process"
  mkdir -p "$STATE"
  local -a backend_args
  case "$BACKEND" in
    sqlite)
      mkdir -p "$DATA"
      backend_args=(--handler=sqlite --sqlite-url="file:$DATA/") ;;
    postgresql)
      backend_args=(--handler=postgresql --postgresql-url="$PG_URL") ;;
  esac
  echo "$BACKEND" >"$BACKENDFILE"
  echo "$PORT" >"$PORTFILE"   # so status/stop find a server started with another MONGO_PORT

  local t0=$SECONDS
  # setsid: own session, so the server survives the caller's Ctrl-C / job teardown.
  # The child writes its own pid before exec, so the pid file is exact, and
  # closes every inherited fd > 2 first: otherwise the server would hold our
  # flock (fd 9; the next start/stop would block forever) or a caller's pipe.
  # --debug-addr=- : no HTTP debug/metrics listener unless FERRETDB_DEBUG_ADDR asks for one
  # (FerretDB's own default would be a fixed port, 8088).
  # shellcheck disable=SC2016  # $$/$0/$@ belong to the inner shell
  DO_NOT_TRACK=1 setsid bash -c '
      echo $$ > "$0"
      for fd in /proc/$$/fd/*; do fd=${fd##*/}; (( fd > 2 )) && eval "exec $fd>&-"; done
      exec "$@"' "$PIDFILE" \
    "$BIN" "${backend_args[@]}" \
      --listen-addr="$HOST:$PORT" --state-dir="$STATE" \
      --debug-addr="${FERRETDB_DEBUG_ADDR:--}" --telemetry=disable \
      --log-level="$LOG_LEVEL" --log-format=text \
    </dev/null >>"$LOGFILE" 2>&1 &

  local deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ! pid="$(running_pid)"; then
      starting && { sleep 0.1; continue; }   # pid not written, or not exec'd yet
      log_tail; rm -f "$PIDFILE"; die "ferretdb exited during startup"
    fi
    if ping_ok; then
      log "ready on mongodb://$HOST:$PORT/ (pid $pid, $BACKEND backend) after $((SECONDS - t0)) s"
      return 0
    fi
    sleep 0.2
  done
  log_tail
  die "ferretdb did not answer a ping after ${START_TIMEOUT}s (still running as pid ${pid:-?}; '$0 stop' to kill it)"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    if ping_ok; then echo "running (pid $pid, mongodb://$HOST:$PORT/, $(running_backend))"
    else echo "running (pid $pid, $HOST:$PORT not answering a ping)"; fi
    return 0
  fi
  echo "stopped"
  return 1
}

# Without MONGO_PORT, talk to the port a running server was started with.
if [[ -z "${MONGO_PORT:-}" && -f "$PORTFILE" ]] && running_pid >/dev/null; then
  PORT="$(cat "$PORTFILE")"
fi

case "$BACKEND" in
  sqlite|postgresql) ;;
  *) die "FERRETDB_BACKEND must be sqlite or postgresql, not '$BACKEND'" ;;
esac

dispatch "$@"
