#!/usr/bin/env bash
# What a session cluster keeps of each job: N submissions and cancellations of the dedup job on one standalone
# session cluster of deploy/local/cluster.sh (Kafka, a JobManager, one TaskManager of two slots, config.yaml as it
# is: Flink's default 256m of TaskManager metaspace), each job submitted over REST by deploy/local/job.sh as users
# do (the jar uploaded each time), reading a real Kafka topic, cancelled once it has read input and completed a
# checkpoint. After each cancellation the TaskManager gets forced GCs (jcmd GC.run) until no user-code class loader
# is left on it (at most 60 s: a job whose loader stays reachable is then recorded as such; the first job's loader
# can take a minute, held by JIT-compiled code on a thread's stack), and then its metaspace is read.
#
#   bench/run-session-cycles.sh [--cycles 100] [--out FILE]
#
# Prints, and writes to FILE (default bench/target/session-cycles.tsv), one row per cycle: the TaskManager's and
# the JobManager's metaspace used after GC (KiB, jstat's MU), the user-code class loaders left on the TaskManager and
# the rounds of forced GCs it took to get there, the TaskManager's threads, of them Kafka client threads
# (kafka-admin-client-thread, kafka-producer-network-thread, ...), and the lz4-java libraries extracted in the
# TaskManager's temporary directory. Ends with the first and last cycle's metaspace and the growth between them;
# exits 1 if a JVM of the cluster logged an OutOfMemoryError or the TaskManager's metaspace after the last cycle is
# more than 64 MiB above the first.
#
# The cluster runs in RUN_DIR (default bench/target/session-cycles-run) on REST_PORT/KAFKA_PORT/CONTROLLER_PORT/
# JM_RPC_PORT (deploy/local/cluster.sh's defaults: 8081, 9092, 9093, 6123) and is stopped on exit, also after a
# failure. About 16 to 20 s per cycle on 2 cores (each job first waits for the brokers to abort the transaction the
# job before left open under the same transactional ids, as a resubmitted job does).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export RUN_DIR=${RUN_DIR:-$REPO/bench/target/session-cycles-run}
CLUSTER=$REPO/deploy/local/cluster.sh
JOB=$REPO/deploy/local/job.sh
REST=http://127.0.0.1:${REST_PORT:-8081}
BOOTSTRAP=127.0.0.1:${KAFKA_PORT:-9092}
GENERATOR_JAR=$REPO/test-data/target/impression-test-data.jar
LIMIT_KIB=$((64 * 1024))

cycles=100 out=$REPO/bench/target/session-cycles.tsv
while [[ $# -gt 0 ]]; do
  case $1 in
    --cycles) cycles=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) sed -n '2,23p' "$0"; exit 2 ;;
  esac
done

log() { printf '[session-cycles] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[[ -f $REPO/job/target/dedup-job.jar && -f $GENERATOR_JAR ]] || die "build first: mvn -B -q install -DskipTests"
grep -q 'size: 256m' "$REPO/deploy/conf/config.yaml" || die "deploy/conf/config.yaml no longer sets 256m of metaspace: update this script"

rm -rf "$RUN_DIR"
mkdir -p "$RUN_DIR" "$(dirname "$out")"
trap '"$CLUSTER" stop >&2 || true' EXIT
"$CLUSTER" start 1

TM=$(cat "$RUN_DIR/pids/taskmanager-0.pid")
JM=$(cat "$RUN_DIR/pids/jobmanager.pid")
for topic in impressions:2 deduplicated:2 dead-letters:1; do
  "$CLUSTER" kafka-topics --create --topic "${topic%:*}" --partitions "${topic#*:}" > /dev/null
done
java -jar "$GENERATOR_JAR" generate --count 20000 --bootstrap-servers "$BOOTSTRAP" --topic impressions \
  --truth "$RUN_DIR/truth.csv" > /dev/null

# Every job reads the topic from its start (its own consumer group's offsets are not used), so each one reads,
# deduplicates and writes records through all its operators and sinks before it is cancelled.
ARGS=(--bootstrap-servers "$BOOTSTRAP" --input-topic impressions --output-topic deduplicated --dlq-topic dead-letters
      --capacity 100000 --starting-offsets earliest --checkpoint-interval 1s)

metaspace_kib() { # used metaspace of a JVM after its last GC, KiB (jstat's MU)
  jstat -gc "$1" | awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "MU") column = i } NR == 2 { printf "%.0f\n", $column }'
}
user_loaders() { jcmd "$1" VM.classloader_stats | grep -c 'ChildFirstClassLoader' || true; }

# Forced GCs until no user-code class loader is left, at most 60 s; prints the rounds it took. Each round is one attach:
# a GC, the finalizers it found pending (lz4-java's native hashes are finalizable: they keep a job's loader one GC
# longer), another GC.
printf 'GC.run\nGC.run_finalization\nGC.run\n' > "$RUN_DIR/collect.jcmd"
collect() {
  local rounds=0 deadline=$((SECONDS + 60))
  while :; do
    jcmd "$TM" -f "$RUN_DIR/collect.jcmd" > /dev/null
    rounds=$((rounds + 1))
    [[ $(user_loaders "$TM") -eq 0 ]] && break
    ((SECONDS < deadline)) || break
    sleep 0.5
  done
  echo "$rounds"
}

records_read() { # records the job's tasks have received from one another (REST metrics of its vertices)
  curl -sf "$REST/jobs/$1" | jq -r '[.vertices[].metrics."read-records"] | add // 0'
}

checkpoints_completed() { curl -sf "$REST/jobs/$1/checkpoints" | jq -r '.counts.completed // 0'; }

printf 'cycle\tjob\ttm_metaspace_kib\tjm_metaspace_kib\ttm_user_loaders\tgc_rounds\ttm_threads\ttm_kafka_threads\tlz4_temp_libs\n' | tee "$out"
for cycle in $(seq 1 "$cycles"); do
  job=$("$JOB" submit --parallelism 2 -- "${ARGS[@]}" 2> "$RUN_DIR/submit.err") || die "submission $cycle failed: $(cat "$RUN_DIR/submit.err")"
  deadline=$((SECONDS + 120))
  until [[ $(records_read "$job") -gt 0 && $(checkpoints_completed "$job") -gt 0 ]]; do
    ((SECONDS < deadline)) || die "job $job read nothing or completed no checkpoint within 120 s"
    sleep 0.5
  done
  "$JOB" cancel "$job" 2> /dev/null
  deadline=$((SECONDS + 120))
  until [[ $("$JOB" status "$job" 2> /dev/null) == CANCELED && $(curl -sf "$REST/overview" | jq '."slots-available"') -eq 2 ]]; do
    ((SECONDS < deadline)) || die "job $job was not cancelled, or its slots not freed, within 120 s"
    sleep 0.5
  done
  gcs=$(collect)
  jcmd "$JM" GC.run > /dev/null
  threads=$(jstack "$TM" | grep -c '^"')
  kafka_threads=$(jstack "$TM" | grep -c '^"kafka-' || true)
  libs=$(find "$RUN_DIR/tmp" -maxdepth 1 -name 'liblz4-java-*.so' | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cycle" "$job" "$(metaspace_kib "$TM")" "$(metaspace_kib "$JM")" \
    "$(user_loaders "$TM")" "$gcs" "$threads" "$kafka_threads" "$libs" | tee -a "$out"
  if grep -l 'OutOfMemoryError' "$RUN_DIR"/logs/*.log "$RUN_DIR"/logs/*.out > /dev/null 2>&1; then
    die "OutOfMemoryError at cycle $cycle: $(grep -h -m1 'OutOfMemoryError' "$RUN_DIR"/logs/*.log "$RUN_DIR"/logs/*.out)"
  fi
done

first=$(awk -F'\t' 'NR == 2 { print $3 }' "$out")
last=$(awk -F'\t' 'END { print $3 }' "$out")
growth=$((last - first))
summary="TaskManager metaspace after cycle 1: $first KiB, after cycle $cycles: $last KiB, growth $growth KiB (limit $LIMIT_KIB)"
log "$summary"
echo "# $summary" >> "$out"
((growth <= LIMIT_KIB)) || die "metaspace grew by more than 64 MiB"
