# shellcheck shell=bash
# What every deploy/local server script shares. Sourced right after the script sets NAME; the
# functions read the script's HOST, RUN and PIDFILE and call its running_pid when they run.
# A script may define its own stop_pid after sourcing (PostgreSQL stops on SIGINT, not SIGTERM).

log() { echo "$NAME: $*" >&2; }
die() { log "$*"; exit 1; }

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# While a server launched as `echo $$ >"$PIDFILE"; exec server` comes up: true while its pid is
# not written yet, or alive but not yet the server (the child is still closing fds or in setpriv
# before exec, slow on a loaded machine); false once that pid is dead, i.e. the server exited.
starting() { [[ -f "$PIDFILE" ]] || return 0; kill -0 "$(cat "$PIDFILE" 2>/dev/null)" 2>/dev/null; }

# Serialise start/stop/reset so two callers cannot start two servers.
lock() { mkdir -p "$RUN"; exec 9>"$RUN/.lock"; flock 9; }

# stop_pid PID [GRACE_SECONDS]: SIGTERM, then SIGKILL if the process outlives the grace period.
stop_pid() {
  local pid="$1" grace="${2:-30}" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < grace * 5; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  log "pid $pid ignored SIGTERM for $grace s, sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.3
}

# Stops the server this script started (only a pid running_pid vouches for), within STOP_GRACE seconds.
cmd_stop() {
  lock
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$PIDFILE"; log "not running"; return 0
  fi
  stop_pid "$pid" "${STOP_GRACE:-30}"
  rm -f "$PIDFILE"
  log "stopped (pid $pid)"
}

# Run state only (data, logs, config, pid); what was fetched or built stays in the cache.
cmd_reset() {
  cmd_stop
  rm -rf "$RUN"
  log "reset: removed $RUN"
}

dispatch() {
  case "${1:-}" in
    fetch)  cmd_fetch ;;
    start)  cmd_start ;;
    stop)   cmd_stop ;;
    status) cmd_status ;;
    reset)  cmd_reset ;;
    *) echo "usage: $0 fetch|start|stop|status|reset" >&2; exit 2 ;;
  esac
}
