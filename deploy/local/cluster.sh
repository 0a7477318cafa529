#!/usr/bin/env bash
# A real local cluster without the Flink distribution: a Kafka broker (KRaft) and a Flink standalone
# session cluster (one JobManager, TaskManagers as separate JVMs), on classpaths Maven resolves from
# Maven Central. Loopback only.
#
#   deploy/local/cluster.sh start [taskmanagers]   start Kafka, the JobManager and N TaskManagers (default 2)
#   deploy/local/cluster.sh start-kafka            start only the Kafka broker (for the end-to-end benchmarks)
#   deploy/local/cluster.sh start-taskmanager      add a TaskManager
#   deploy/local/cluster.sh kill-taskmanager ID    kill -9 a TaskManager (failover drills)
#   deploy/local/cluster.sh status                 what runs, and the cluster overview
#   deploy/local/cluster.sh kafka-topics ARGS...   Kafka's kafka-topics tool against the local broker, e.g.
#                                                  kafka-topics --create --topic impressions --partitions 4
#   deploy/local/cluster.sh stop                   stop everything; leaves no process behind, also after a failed run
#
# Environment: RUN_DIR (default deploy/local/run: logs, pids, checkpoints, savepoints, Kafka data),
# REST_PORT (8081), KAFKA_PORT (9092), CONTROLLER_PORT (9093), JM_RPC_PORT (6123), TASKMANAGER_JVM_OPTS (extra
# JVM flags of the TaskManagers started after it is set, e.g. the benchmark profile's JFR stack depth),
# FLINK_CLASSPATH_PROFILES (profiles of deploy/cluster/pom.xml added to the JobManager's and TaskManagers' class
# path, space-separated; "table" for jobs that use the Table API or SQL; none by default), FLINK_CONFIG (the
# config.yaml to start from, default deploy/conf/config.yaml; bench/conf/flink-defaults.yaml is Flink's defaults),
# CLUSTER_JVM_OPTS (extra JVM flags of every JVM this script starts, Kafka's included; the tests' clusters pass
# -XX:TieredStopAtLevel=1: JVMs that live a few minutes spend less CPU compiling than the optimized code saves).
#
# A process is up once it listens on its ports itself (not once something answers there); exit status 75 when a port
# was taken by another process, which the message names.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUN_DIR=${RUN_DIR:-$REPO/deploy/local/run}
REST_PORT=${REST_PORT:-8081}
KAFKA_PORT=${KAFKA_PORT:-9092}
CONTROLLER_PORT=${CONTROLLER_PORT:-9093}
JM_RPC_PORT=${JM_RPC_PORT:-6123}
FLINK_CONFIG=${FLINK_CONFIG:-$REPO/deploy/conf/config.yaml}
CONF=$RUN_DIR/conf
LOGS=$RUN_DIR/logs
PIDS=$RUN_DIR/pids
# Every JVM of this cluster carries this marker, so that stop finds them even without pid files.
MARKER="-Dimpression.dedup.run=$RUN_DIR"
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java
# The --add-opens/--add-exports Flink's scripts pass on Java 17 (env.java.default-opts.all); the
# repository keeps the list once, for Maven's own JVM, in .mvn/jvm.config, whose other flags (Maven's JIT) are
# not the cluster's.
JAVA17_OPTS=$(grep -oE -- '-XX:\+IgnoreUnrecognizedVMOptions|--add-(opens|exports)=[^ ]+' "$REPO/.mvn/jvm.config" | tr '\n' ' ')

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

classpath() { # classpath <profile,...>: the profiles' dependencies together, resolved once per version of deploy/cluster/pom.xml
  local pom=$REPO/deploy/cluster/pom.xml
  local name=${1//,/+}
  local file; file=$RUN_DIR/classpath-$name-$(cksum < "$pom" | cut -d' ' -f1).txt
  if [[ ! -s $file ]]; then
    log "resolving the $name classpath with Maven (first start only)"
    mkdir -p "$LOGS"
    mvn -q -B -Dstyle.color=never -f "$pom" -P"$1" dependency:build-classpath -Dmdep.outputFile="$file.$$" \
      > "$LOGS/maven-classpath-$name.log" 2>&1 || die "could not resolve the $name classpath: $LOGS/maven-classpath-$name.log"
    mv "$file.$$" "$file" # whole or not at all, for whoever reads it (StandaloneCluster copies it to its next run directory)
  fi
  cat "$file"
}

# The JobManager's and TaskManagers' class path: the profile flink, and FLINK_CLASSPATH_PROFILES with it (resolved
# together, so that a jar both need is there once).
read -r -a EXTRA_FLINK_PROFILES <<< "${FLINK_CLASSPATH_PROFILES:-}"
for profile in "${EXTRA_FLINK_PROFILES[@]}"; do
  [[ $profile != flink && $profile != kafka ]] && grep -qF "<id>$profile</id>" "$REPO/deploy/cluster/pom.xml" \
    || die "FLINK_CLASSPATH_PROFILES takes profiles of deploy/cluster/pom.xml other than flink and kafka (such as table), got '$profile'"
done
FLINK_PROFILES=$(IFS=,; echo "flink${EXTRA_FLINK_PROFILES[*]:+,${EXTRA_FLINK_PROFILES[*]}}")
flink_classpath() { classpath "$FLINK_PROFILES"; }

prepare_conf() {
  mkdir -p "$CONF" "$LOGS" "$PIDS" "$RUN_DIR/tmp" "$RUN_DIR/checkpoints" "$RUN_DIR/savepoints"
  sed -e "s#@RUN_DIR@#$RUN_DIR#g" -e "s#port: 8081#port: $REST_PORT#" -e "s#port: 6123#port: $JM_RPC_PORT#" \
    "$FLINK_CONFIG" > "$CONF/config.yaml"
  cp "$REPO/deploy/conf/log4j2.properties" "$CONF/log4j2.properties"
  sed -e "s#@RUN_DIR@#$RUN_DIR#g" -e "s#@KAFKA_PORT@#$KAFKA_PORT#g" -e "s#@CONTROLLER_PORT@#$CONTROLLER_PORT#g" \
    "$REPO/deploy/conf/kafka-server.properties" > "$CONF/kafka-server.properties"
  rm -f "$CONF"/resource-params-*.txt # derived from config.yaml (java_utils)
}

alive() { [[ -f $PIDS/$1.pid ]] && kill -0 "$(cat "$PIDS/$1.pid")" 2>/dev/null; }

# launch <name> <java args...>: start a JVM in its own session, record its pid.
launch() {
  local name=$1; shift
  # shellcheck disable=SC2086
  setsid "$JAVA" "$MARKER" ${CLUSTER_JVM_OPTS:-} -Djava.io.tmpdir="$RUN_DIR/tmp" -Dlog.file="$LOGS/$name.log" -Dlog4j.configurationFile="file:$CONF/log4j2.properties" \
    -Dlog4j2.configurationFile="file:$CONF/log4j2.properties" "$@" > "$LOGS/$name.out" 2>&1 < /dev/null &
  echo $! > "$PIDS/$name.pid"
}

wait_for() { # wait_for <seconds> <description> <command...>
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" > /dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out after ${seconds}s waiting for $what (logs: $LOGS)"
    sleep 0.2
  done
}

# in_parallel <command>...: runs the commands (a function and its arguments, in one word each: "stop_pid kafka") at once,
# each in a subshell (a die ends only its own), and waits for all; fails if any failed, once all have ended (with
# PORT_TAKEN only if that was every failure).
in_parallel() {
  local pids=() failed=0 status command
  for command in "$@"; do
    # shellcheck disable=SC2086
    $command & pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" && continue
    status=$?
    ((status != PORT_TAKEN || failed == 0)) && failed=$status # a port taken only if nothing failed otherwise
  done
  return "$failed"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Exit status when a port given to this script is taken by another process (EX_TEMPFAIL of sysexits.h): whoever chose
# the ports can start again on others (the tests choose free ones, and another process may bind one of them before the
# JVM it was meant for does).
PORT_TAKEN=75
port_taken() { log "ERROR: port $1 is taken by another process (set $2)"; exit "$PORT_TAKEN"; }

# listens <name> <port>: whether the JVM launched as <name> is the process that listens on <port>. An open port alone
# does not say so: between the check before a launch and the JVM's bind another process may take the port, and a
# client would then talk to that process (a Kafka client reading a Flink server's reply ends its network thread).
listens() {
  local pid inode
  pid=$(cat "$PIDS/$1.pid" 2>/dev/null) || return 1
  for inode in $(awk -v port="$(printf ':%04X' "$2")" '$4 == "0A" && substr($2, length($2) - 4) == port { print $10 }' \
      /proc/net/tcp /proc/net/tcp6 2>/dev/null); do
    find "/proc/$pid/fd" -lname "socket:\[$inode\]" -print -quit 2>/dev/null | grep -q . && return 0
  done
  return 1
}

# await_listening <name> <seconds> <port>:<variable>...: until the JVM launched as <name> listens on each port. If it
# exits first, fails at once: with PORT_TAKEN if it could not bind (naming the ports another process listens on, else
# all of them), else saying where its logs are.
await_listening() {
  local name=$1 seconds=$2; shift 2
  local deadline=$((SECONDS + seconds)) spec pending
  while true; do
    pending=()
    for spec in "$@"; do listens "$name" "${spec%%:*}" || pending+=("$spec"); done
    ((${#pending[@]} == 0)) && return 0
    if ! alive "$name"; then
      local failed_bind="Address already in use|BindException|[Ff]ailed to bind"
      if grep -qsE "$failed_bind" "$LOGS/$name.log" "$LOGS/$name.out"; then
        for spec in "$@"; do # the port another process listens on, else the one the failure names
          port_open "${spec%%:*}" && port_taken "${spec%%:*}" "${spec#*:}"
          grep -shE "$failed_bind" "$LOGS/$name.log" "$LOGS/$name.out" | grep -qE "[: ]${spec%%:*}([^0-9]|$)" \
            && port_taken "${spec%%:*}" "${spec#*:}"
        done
        log "ERROR: $name could not bind one of its ports (${*}), taken by another process"
        exit "$PORT_TAKEN"
      fi
      die "$name exited while starting (logs: $LOGS/$name.log, $LOGS/$name.out)"
    fi
    ((SECONDS < deadline)) || die "timed out after ${seconds}s waiting for $name to listen on ${pending[*]} (logs: $LOGS)"
    sleep 0.2
  done
}

# java_utils <GET_TM_RESOURCE_PARAMS|GET_JM_RESOURCE_PARAMS> <line>: what Flink's scripts compute:
# line 1 the JVM memory flags, line 2 the derived memory options as -D arguments. One JVM (BashJavaUtils, on Flink's
# class path: seconds) per kind and configuration: its two lines are kept in the conf directory under config.yaml's
# checksum (a config.yaml edited between start and start-taskmanager, as the benchmarks do, is computed anew), and
# prepare_conf clears them when it writes config.yaml again.
java_utils() {
  local file; file=$CONF/resource-params-$1-$(cksum < "$CONF/config.yaml" | cut -d' ' -f1).txt
  if [[ ! -s $file ]]; then
    # shellcheck disable=SC2086
    "$JAVA" ${CLUSTER_JVM_OPTS:-} -cp "$(flink_classpath)" org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$CONF" 2>/dev/null \
      | grep '^BASH_JAVA_UTILS_EXEC_RESULT:' | cut -d: -f2- > "$file.$$" || true
    mv "$file.$$" "$file"
  fi
  sed -n "${2}p" "$file"
}

# kafka_cluster_id: a new cluster id as StorageTool random-uuid prints it (16 random bytes in unpadded base64url, never
# starting with '-', which a command line would take for an option), without a JVM of its own.
kafka_cluster_id() {
  local id
  until [[ ${id:-} =~ ^[A-Za-z0-9_][A-Za-z0-9_-]{21}$ ]]; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
  done
  printf '%s\n' "$id"
}

start_kafka() {
  alive kafka && { log "Kafka already runs"; return; }
  port_open "$KAFKA_PORT" && port_taken "$KAFKA_PORT" KAFKA_PORT
  port_open "$CONTROLLER_PORT" && port_taken "$CONTROLLER_PORT" CONTROLLER_PORT
  local cp; cp=$(classpath kafka)
  if [[ ! -f $RUN_DIR/kafka-data/meta.properties ]]; then
    local id; id=$(kafka_cluster_id)
    # shellcheck disable=SC2086
    "$JAVA" ${CLUSTER_JVM_OPTS:-} -cp "$cp" -Dlog4j2.configurationFile="file:$CONF/log4j2.properties" -Dlog.file="$LOGS/kafka-format.log" \
      kafka.tools.StorageTool format -t "$id" -c "$CONF/kafka-server.properties" > "$LOGS/kafka-format.out" 2>&1 \
      || die "formatting Kafka storage failed: $LOGS/kafka-format.out"
  fi
  launch kafka -Xms512m -Xmx512m -cp "$cp" kafka.Kafka "$CONF/kafka-server.properties"
  await_listening kafka 90 "$KAFKA_PORT:KAFKA_PORT" "$CONTROLLER_PORT:CONTROLLER_PORT"
  log "Kafka up on 127.0.0.1:$KAFKA_PORT (pid $(cat "$PIDS/kafka.pid"))"
}

start_jobmanager() {
  alive jobmanager && { log "JobManager already runs"; return; }
  port_open "$REST_PORT" && port_taken "$REST_PORT" REST_PORT
  port_open "$JM_RPC_PORT" && port_taken "$JM_RPC_PORT" JM_RPC_PORT
  local jvm dyn
  jvm=$(java_utils GET_JM_RESOURCE_PARAMS 1); dyn=$(java_utils GET_JM_RESOURCE_PARAMS 2)
  [[ -n $jvm ]] || die "could not compute the JobManager's memory flags from $CONF/config.yaml"
  # shellcheck disable=SC2086
  launch jobmanager $jvm $JAVA17_OPTS -cp "$(flink_classpath)" \
    org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint --configDir "$CONF" $dyn
  await_listening jobmanager 120 "$JM_RPC_PORT:JM_RPC_PORT" "$REST_PORT:REST_PORT"
  wait_for 120 "the JobManager's REST API on port $REST_PORT" curl -sf "http://127.0.0.1:$REST_PORT/overview"
  log "JobManager up: http://127.0.0.1:$REST_PORT (pid $(cat "$PIDS/jobmanager.pid"))"
}

taskmanager_registered() { # taskmanager_registered <resource id>
  curl -sf "http://127.0.0.1:$REST_PORT/taskmanagers" | jq -e --arg id "$1" '[.taskmanagers[].id] | index($id) != null'
}

# start_taskmanagers <count>: launches them all, then waits for each to register (they start side by side).
start_taskmanagers() {
  local jvm dyn
  jvm=$(java_utils GET_TM_RESOURCE_PARAMS 1); dyn=$(java_utils GET_TM_RESOURCE_PARAMS 2)
  [[ -n $jvm ]] || die "could not compute the TaskManager's memory flags from $CONF/config.yaml"
  local ids=() id=0
  for _ in $(seq 1 "$1"); do
    # Ids are never reused (a killed TaskManager's log stays next to its successor's).
    while [[ -f $PIDS/taskmanager-$id.pid || -f $LOGS/taskmanager-$id.log ]]; do id=$((id + 1)); done
    # shellcheck disable=SC2086
    launch "taskmanager-$id" -XX:+UseG1GC $jvm $JAVA17_OPTS ${TASKMANAGER_JVM_OPTS:-} -cp "$(flink_classpath)" \
      org.apache.flink.runtime.taskexecutor.TaskManagerRunner --configDir "$CONF" $dyn -D "taskmanager.resource-id=taskmanager-$id"
    ids+=("$id")
  done
  for id in "${ids[@]}"; do
    wait_for 120 "TaskManager $id to register" taskmanager_registered "taskmanager-$id"
    log "TaskManager $id up (pid $(cat "$PIDS/taskmanager-$id.pid"))"
  done
}

# start_flink <taskmanagers>: the JobManager, then the TaskManagers.
start_flink() {
  in_parallel start_jobmanager "java_utils GET_TM_RESOURCE_PARAMS 1" || exit $?
  start_taskmanagers "$1"
}

# stop_pid <name>: SIGTERM, up to 30 s to exit, then SIGKILL.
stop_pid() {
  local file=$PIDS/$1.pid
  [[ -f $file ]] || return 0
  local pid; pid=$(cat "$file")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { log "$1 did not stop within 30 s; killing it"; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$file"
}

stop_all() {
  # The TaskManagers and the JobManager at once, the broker (which their jobs' clients may still talk to) after them.
  local flink=("stop_pid jobmanager")
  for file in "$PIDS"/taskmanager-*.pid; do [[ -e $file ]] && flink+=("stop_pid $(basename "$file" .pid)"); done
  in_parallel "${flink[@]}"
  stop_pid kafka
  # Anything of this cluster still alive (a pid file lost to a failed run): TERM, up to 30 s to exit, then KILL.
  if pgrep -f -- "$MARKER" > /dev/null; then
    pkill -TERM -f -- "$MARKER" || true
    for _ in $(seq 1 300); do pgrep -f -- "$MARKER" > /dev/null || break; sleep 0.1; done
    pkill -KILL -f -- "$MARKER" || true
  fi
  pgrep -f -- "$MARKER" > /dev/null && die "processes of $RUN_DIR survived: $(pgrep -f -- "$MARKER" | tr '\n' ' ')"
  log "stopped; no process of $RUN_DIR left"
}

command -v curl > /dev/null || die "curl is required"
command -v jq > /dev/null || die "jq is required"

case ${1:-} in
  start)
    prepare_conf
    # Side by side: the broker, and the JobManager with the TaskManagers' memory flags (java_utils) (neither needs the
    # broker); then the TaskManagers, all at once, as soon as the JobManager is up (they register with it, not with the
    # broker). The class paths first, so that none is resolved twice at once.
    in_parallel "classpath kafka" "classpath $FLINK_PROFILES" > /dev/null || exit 1
    in_parallel start_kafka "start_flink ${2:-2}" > /dev/null || exit $?
    ;;
  start-kafka)
    prepare_conf
    start_kafka
    ;;
  start-taskmanager)
    start_taskmanagers 1
    ;;
  kill-taskmanager)
    [[ -n ${2:-} ]] || die "usage: $0 kill-taskmanager ID"
    file=$PIDS/taskmanager-$2.pid
    [[ -f $file ]] || die "no TaskManager $2"
    kill -KILL "$(cat "$file")" && rm -f "$file"
    log "killed TaskManager $2 (kill -9)"
    ;;
  status)
    for file in "$PIDS"/*.pid; do
      [[ -e $file ]] || continue
      name=$(basename "$file" .pid)
      if alive "$name"; then echo "$name: running (pid $(cat "$file"))"; else echo "$name: not running"; fi
    done
    curl -sf "http://127.0.0.1:$REST_PORT/overview" || echo "JobManager REST API not reachable on port $REST_PORT"
    echo
    ;;
  kafka-topics)
    shift
    "$JAVA" -cp "$(classpath kafka)" -Dlog4j2.configurationFile="file:$REPO/deploy/conf/log4j2.properties" \
      -Dlog.file="$LOGS/kafka-topics.log" org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" "$@"
    ;;
  stop)
    stop_all
    ;;
  *)
    sed -n '2,18p' "$0"
    exit 2
    ;;
esac
