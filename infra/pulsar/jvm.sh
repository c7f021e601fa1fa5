# shellcheck shell=bash
# Helpers for the scripts that run a Pulsar JVM from Maven jars (start.sh: the standalone broker,
# proxy-start.sh: the Pulsar proxy). Sourced by common.sh, never run. Messages are prefixed with $LOG_PREFIX.

LOG_PREFIX="${LOG_PREFIX:-pulsar}"
log() { echo "$LOG_PREFIX: $*" >&2; }
die() { log "$*"; exit 1; }

now_ms() { # epoch milliseconds (GNU date); falls back to whole seconds elsewhere
  local t
  t="$(date +%s%3N)"
  [[ "$t" =~ ^[0-9]+$ ]] || t="$(($(date +%s) * 1000))"
  echo "$t"
}

fmt_secs() { # fmt_secs MILLIS -> "23.4"
  printf '%d.%d' "$(($1 / 1000))" "$((($1 % 1000) / 100))"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Prints the pid from PIDFILE if that process is alive and really runs CLASS (guards against a stale
# pid file whose pid was reused by something else).
jvm_pid() { # jvm_pid PIDFILE CLASS
  local pid
  [[ -f "$1" ]] || return 1
  pid="$(tr -dc '0-9' <"$1")"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  ps -o args= -p "$pid" 2>/dev/null | grep -q "$2" || return 1
  echo "$pid"
}

# Sets JAVA and java_major: $JAVA_HOME/bin/java, else java on PATH; must be 17+.
require_java() {
  if [[ -n "${JAVA_HOME:-}" ]]; then
    JAVA="$JAVA_HOME/bin/java"
    [[ -x "$JAVA" ]] || die "JAVA_HOME=$JAVA_HOME has no bin/java"
  else
    JAVA="$(command -v java || true)"
    [[ -n "$JAVA" ]] || die "java not found: install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
  fi
  java_major="$("$JAVA" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)"
  [[ "${java_major:-0}" -ge 17 ]] || die "Pulsar $PULSAR_VERSION needs Java 17+, $JAVA is version ${java_major:-unknown}"
}

# Fetches the runtime jars of POM into DIR once: `mvn dependency:copy-dependencies`, then a .complete
# marker (a half-finished download has none and is redone from scratch). Instances share the cache, so
# downloads are serialised with a lock in $PULSAR_LIB_DIR. `mvn` is only needed while DIR is not complete.
ensure_jars() { # ensure_jars POM DIR WHAT [MAVEN_ARGS...]
  local pom="$1" dir="$2" what="$3" t0
  shift 3
  [[ -f "$dir/.complete" ]] && return 0
  command -v mvn >/dev/null || die "mvn not found and $dir is not populated: install Maven (apt-get install maven)"
  mkdir -p "$PULSAR_LIB_DIR"
  if command -v flock >/dev/null; then
    exec 8>"$PULSAR_LIB_DIR/.download.lock"
    flock -w 1800 8 || die "timed out waiting for another download into $PULSAR_LIB_DIR"
  fi
  if [[ ! -f "$dir/.complete" ]]; then
    log "fetching $what jars from Maven into $dir (once) ..."
    t0="$(now_ms)"
    rm -rf "$dir"
    if ! mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies \
      -Dpulsar.version="$PULSAR_VERSION" "$@" -DincludeScope=runtime -DoutputDirectory="$dir" >&2; then
      die "mvn could not fetch $what (see output above)"
    fi
    touch "$dir/.complete"
    log "fetched $(find "$dir" -name '*.jar' | wc -l | tr -d ' ') jars in $(fmt_secs $(($(now_ms) - t0))) s"
  fi
  if command -v flock >/dev/null; then exec 8>&-; fi
}

# JVM flags every Pulsar process gets, as in Pulsar's own bin/pulsar (Netty, BookKeeper, RocksDB need the
# module openings on 17+), followed by the caller's memory flags and $PULSAR_EXTRA_OPTS.
jvm_opts() { # jvm_opts MEMORY_FLAGS -> fills the array JVM_OPTS
  # shellcheck disable=SC2206 # memory flags and PULSAR_EXTRA_OPTS are word lists on purpose
  JVM_OPTS=(
    $1
    -XX:+ExitOnOutOfMemoryError
    -XX:+PerfDisableSharedMem # no hsperfdata mmap file in /tmp
    --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.util.zip=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/jdk.internal.misc=ALL-UNNAMED
    --add-opens java.base/sun.net=ALL-UNNAMED
    --add-opens java.management/sun.management=ALL-UNNAMED
    --add-opens java.base/jdk.internal.platform=ALL-UNNAMED # load manager reads container CPU limits
    -Dio.netty.tryReflectionSetAccessible=true
    -Djava.net.preferIPv4Stack=true
    -Dlog4j.configurationFile="$PULSAR_DIR/log4j2.xml"
    $PULSAR_EXTRA_OPTS
  )
}

# Starts CMD... detached (own session: Ctrl-C / job-control signals aimed at the caller do not reach it)
# with cwd DIR, output in LOG (the previous run's log is kept as LOG.1), pid in PIDFILE; sets `pid`.
# fd 9 (the caller's start lock) must not leak into the JVM, or it would hold the lock for its whole life.
launch_jvm() { # launch_jvm DIR LOG PIDFILE CMD...
  local dir="$1" logfile="$2" pidfile="$3"
  shift 3
  rm -f "$pidfile"
  if [[ -f "$logfile" ]]; then mv -f "$logfile" "$logfile.1"; fi
  (
    cd "$dir"
    if command -v setsid >/dev/null; then
      exec setsid nohup "$@" >"$logfile" 2>&1 </dev/null 9>&-
    else
      exec nohup "$@" >"$logfile" 2>&1 </dev/null 9>&-
    fi
  ) &
  pid=$!
  echo "$pid" >"$pidfile"
}

# Waits (poll every 0.5 s, at most TIMEOUT s after T0_MS) until JVM PID is alive and READY_FN succeeds.
# If the JVM exits, or on timeout (the JVM is then stopped, so no half-started process is left behind),
# prints the last 40 log lines and exits 1.
wait_jvm_ready() { # wait_jvm_ready PID PIDFILE LOG TIMEOUT T0_MS READY_FN
  local pid="$1" pidfile="$2" logfile="$3" timeout="$4" t0="$5" ready="$6" deadline
  deadline=$((t0 + timeout * 1000))
  fail() {
    log "$1; last 40 lines of $logfile:"
    tail -n 40 "$logfile" >&2 || true
    exit 1
  }
  until kill -0 "$pid" 2>/dev/null && "$ready"; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$pidfile"
      fail "JVM $pid exited during startup"
    fi
    if (($(now_ms) > deadline)); then
      kill -TERM "$pid" 2>/dev/null || true
      sleep 5
      kill -KILL "$pid" 2>/dev/null || true
      rm -f "$pidfile"
      fail "not ready after ${timeout}s; stopped JVM $pid"
    fi
    sleep 0.5
  done
}

# SIGTERM, wait up to TIMEOUT s, then SIGKILL; prints how it went.
stop_jvm() { # stop_jvm PID TIMEOUT -> echoes "SIGTERM, 6.1 s" or "SIGKILL after 30s, 31.0 s"
  local pid="$1" timeout="$2" t0 deadline how=SIGTERM
  t0="$(now_ms)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((t0 + timeout * 1000))
  while kill -0 "$pid" 2>/dev/null && (($(now_ms) < deadline)); do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    how="SIGKILL after ${timeout}s"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
  echo "$how, $(fmt_secs $(($(now_ms) - t0))) s"
}
