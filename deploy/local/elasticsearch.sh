#!/usr/bin/env bash
# Local single-node Elasticsearch 8.x for tests, without Docker or a tarball:
# the server jar + transport-netty4 module come from Maven Central
# (deploy/local/elasticsearch-pom.xml), and a tiny launcher (deploy/local/es-runner,
# compiled here with javac) starts the node in-process, bound to 127.0.0.1 only.
#
#   deploy/local/elasticsearch.sh fetch|start|stop|status|reset
#
# Environment (all optional):
#   ENGRAM_INFRA_CACHE   cache root                 (default: <repo>/.cache/infra, git-ignored)
#   ES_PORT              HTTP port                  (default: 9200; fails if taken, never moves)
#   ES_TRANSPORT_PORT    node transport port/range  (default: 9300-9399, loopback only)
#   ES_HEAP              heap size                  (default: 512m)
#   ES_JAVA_OPTS         extra JVM options
#   ES_SETTINGS          extra node settings, "key=value key=value"
#   ES_START_TIMEOUT     seconds to wait for yellow (default: 120)
#   JAVA_HOME            Java 17+ (default: java on PATH)
#
# Not a full distribution: no x-pack, painless, reindex/_delete_by_query,
# ingest pipelines, mapper-extras. See deploy/local/es-runner/engram/local/EngramEsRunner.java.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$HERE/../.." && pwd)"
NAME=elasticsearch.sh
# shellcheck source=deploy/local/lib.sh
source "$HERE/lib.sh"
POM="$HERE/elasticsearch-pom.xml"
SRC="$HERE/es-runner"

CACHE="${ENGRAM_INFRA_CACHE:-$REPO_ROOT/.cache/infra}"
LIBS="$CACHE/es-libs"
CLASSES="$CACHE/es-runner-classes"
RUN="$CACHE/run/elasticsearch"
ES_HOME="$RUN/home"
DATA="$RUN/data"
LOGS="$RUN/logs"
PIDFILE="$RUN/elasticsearch.pid"
PORTFILE="$RUN/http.port"

HOST=127.0.0.1
PORT="${ES_PORT:-9200}"
TPORT="${ES_TRANSPORT_PORT:-9300-9399}"
HEAP="${ES_HEAP:-512m}"
START_TIMEOUT="${ES_START_TIMEOUT:-120}"
MAIN_CLASS=engram.local.EngramEsRunner

if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"; JAVAC="$JAVA_HOME/bin/javac"
else
  JAVA=java; JAVAC=javac
fi

# ---------------------------------------------------------------- fetch

# Each output dir holds a marker with the hash of what it was built from, so
# bumping the version in the pom or editing the launcher triggers a rebuild.
libs_hash() { sha256sum "$POM" | cut -d' ' -f1; }
classes_hash() { (libs_hash; find "$SRC" -name '*.java' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }
up_to_date() { [[ -f "$1/.complete" ]] && [[ "$(cat "$1/.complete")" == "$2" ]]; }

cmd_fetch() {
  command -v "$JAVA" >/dev/null || die "java not found (Java 17+ needed)"
  mkdir -p "$CACHE"
  if ! up_to_date "$LIBS" "$(libs_hash)"; then
    command -v mvn >/dev/null || die "mvn not found (needed once to fetch the Elasticsearch jars)"
    # Download into a temp dir and rename, so an interrupted fetch never looks complete.
    local tmp="$LIBS.tmp.$$"
    rm -rf "$tmp"
    log "fetching Elasticsearch jars into $LIBS (Maven Central) ..."
    if ! mvn -B -q -Dstyle.color=never -f "$POM" dependency:copy-dependencies \
          -DincludeScope=runtime -DoutputDirectory="$tmp" >"$CACHE/es-fetch.log" 2>&1; then
      tail -n 30 "$CACHE/es-fetch.log" >&2
      rm -rf "$tmp"
      die "mvn dependency:copy-dependencies failed (full log: $CACHE/es-fetch.log)"
    fi
    ls "$tmp"/elasticsearch-8.*.jar "$tmp"/transport-netty4-*.jar >/dev/null 2>&1 \
      || { rm -rf "$tmp"; die "server or transport-netty4 jar missing after fetch"; }
    libs_hash > "$tmp/.complete"
    rm -rf "$LIBS"
    mv "$tmp" "$LIBS"
    log "fetched $(find "$LIBS" -name '*.jar' | wc -l) jars ($(du -sh "$LIBS" | cut -f1))"
  fi
  if ! up_to_date "$CLASSES" "$(classes_hash)"; then
    command -v "$JAVAC" >/dev/null || die "javac not found (a JDK 17+ is needed, not just a JRE)"
    local tmp="$CLASSES.tmp.$$"
    rm -rf "$tmp"; mkdir -p "$tmp"
    find "$SRC" -name '*.java' -print0 | xargs -0 "$JAVAC" -nowarn --release 17 -encoding UTF-8 \
      -cp "$LIBS/*" -d "$tmp" || { rm -rf "$tmp"; die "compiling $SRC failed"; }
    classes_hash > "$tmp/.complete"
    rm -rf "$CLASSES"
    mv "$tmp" "$CLASSES"
    log "compiled launcher into $CLASSES"
  fi
}

# ---------------------------------------------------------------- helpers

# Body of GET http://127.0.0.1:$PORT$1, or failure. curl if present, else plain bash.
http_get() {
  if command -v curl >/dev/null; then
    curl -fsS --max-time "${2:-10}" "http://$HOST:$PORT$1"
  else
    local resp
    resp="$(exec 3<>"/dev/tcp/$HOST/$PORT" && printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" "$HOST" >&3 \
      && timeout "${2:-10}" cat <&3)" || return 1
    [[ "$resp" == "HTTP/1."?" 200"* ]] || return 1
    printf '%s\n' "${resp#*$'\r\n\r\n'}"
  fi
}

# The pid is ours only if it is alive AND is our launcher with our path.home:
# guards against a stale pid file whose pid was reused by something else.
running_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid; pid="$(cat "$PIDFILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local cmdline; cmdline="$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmdline" == *"$MAIN_CLASS path.home=$ES_HOME "* ]] || return 1
  echo "$pid"
}

write_config() {
  mkdir -p "$ES_HOME" "$DATA" "$LOGS" "$RUN/tmp"
  # Regenerated on every start; the data dir is kept.
  # Node log: INFO to a rolling file; stdout.log only gets the launcher's own
  # lines and anything a crash prints.
  cat > "$RUN/log4j2.properties" <<EOF
# generated by deploy/local/elasticsearch.sh -- edits are overwritten on start
status = error
appender.file.type = RollingFile
appender.file.name = file
appender.file.fileName = $LOGS/elasticsearch.log
appender.file.filePattern = $LOGS/elasticsearch-%i.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d{ISO8601}][%-5p][%-25c{1.}]%marker %m%n
appender.file.policies.type = Policies
appender.file.policies.size.type = SizeBasedTriggeringPolicy
appender.file.policies.size.size = 20MB
appender.file.strategy.type = DefaultRolloverStrategy
appender.file.strategy.max = 3
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
EOF
}

log_tail() {
  log "---- last lines of $LOGS/elasticsearch.log ----"
  tail -n 40 "$LOGS/elasticsearch.log" >&2 2>/dev/null || true
  log "---- last lines of $LOGS/stdout.log ----"
  tail -n 20 "$LOGS/stdout.log" >&2 2>/dev/null || true
}

# SIGTERM (node closes cleanly, normally 1-3 s), SIGKILL after 30 s.

# ---------------------------------------------------------------- commands

cmd_start() {
  cmd_fetch
  lock
  local pid
  if pid="$(running_pid)"; then
    if port_open "$PORT"; then log "already running (pid $pid, http://$HOST:$PORT)"; return 0; fi
    die "pid $pid is alive but $HOST:$PORT does not answer; try: $0 stop"
  fi
  rm -f "$PIDFILE" "$PIDFILE.tmp"
  # http.port is a single port: Elasticsearch fails rather than silently moving up.
  port_open "$PORT" && die "$HOST:$PORT is already in use by another process"

  write_config

  # Node settings. network.host=127.0.0.1 binds HTTP and transport to loopback
  # only; discovery.type=single-node means no peer discovery at all. Nothing in
  # this build reaches out (no x-pack, no ingest-geoip downloader, no APM).
  local -a settings=(
    "path.home=$ES_HOME" "path.data=$DATA" "path.logs=$LOGS"
    "network.host=$HOST" "http.port=$PORT" "transport.port=$TPORT"
    "discovery.type=single-node" "cluster.name=${ES_CLUSTER_NAME:-engram-local}"
  )
  # shellcheck disable=SC2206  # ES_SETTINGS is word-split on purpose
  if [[ -n "${ES_SETTINGS:-}" ]]; then settings+=(${ES_SETTINGS}); fi

  # JVM flags follow the distribution's jvm.options where they matter here.
  # shellcheck disable=SC2206
  local -a jvm=(
    "-Xms$HEAP" "-Xmx$HEAP" -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError
    -Dfile.encoding=UTF-8 -Djava.awt.headless=true -Djava.locale.providers=CLDR
    -Djava.io.tmpdir="$RUN/tmp"
    -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0
    -Dlog4j2.configurationFile="$RUN/log4j2.properties" -Dlog4j2.disable.jmx=true
    -Dlog4j.shutdownHookEnabled=false
    ${ES_JAVA_OPTS:-}
  )

  echo "$PORT" > "$PORTFILE"  # so status/start find a node started with another ES_PORT
  local t0=$SECONDS
  # setsid: own session, so the node survives the caller's Ctrl-C / job teardown.
  # The child writes its own pid (tmp + rename) before exec'ing java, so the pid
  # file is exactly the JVM's pid. 9>&- : the JVM must not inherit the lock fd.
  # shellcheck disable=SC2016  # $$ is the child's
  setsid bash -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; exec "$@"' "$PIDFILE" \
    "$JAVA" "${jvm[@]}" -cp "$LIBS/*:$CLASSES" "$MAIN_CLASS" "${settings[@]}" \
    </dev/null >"$LOGS/stdout.log" 2>&1 9>&- &

  local i
  for ((i = 0; i < 100; i++)); do [[ -s "$PIDFILE" ]] && break; sleep 0.1; done
  [[ -s "$PIDFILE" ]] || die "node process did not start (no pid file)"
  pid="$(cat "$PIDFILE")"

  local deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log_tail; rm -f "$PIDFILE"; die "node exited during startup"
    fi
    if port_open "$PORT" && http_get "/_cluster/health?wait_for_status=yellow&timeout=5s" 10 >/dev/null 2>&1; then
      log "healthy on http://$HOST:$PORT (pid $pid) after $((SECONDS - t0)) s"
      return 0
    fi
    sleep 1
  done
  log_tail
  # Leave nothing half-started behind: a failed start means no node.
  stop_pid "$pid"; rm -f "$PIDFILE"
  die "node not healthy after ${START_TIMEOUT}s; stopped it"
}

cmd_status() {
  local pid health
  if pid="$(running_pid)"; then
    if health="$(http_get "/_cluster/health" 5 2>/dev/null)"; then
      echo "running (pid $pid, http://$HOST:$PORT) $health"
    else
      echo "running (pid $pid, http://$HOST:$PORT not answering yet)"
    fi
    return 0
  fi
  echo "stopped"
  return 1
}

# Without ES_PORT, talk to the port a running node was started with.
if [[ -z "${ES_PORT:-}" && -f "$PORTFILE" ]] && running_pid >/dev/null; then
  PORT="$(cat "$PORTFILE")"
fi

dispatch "$@"
