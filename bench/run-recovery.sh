#!/usr/bin/env bash
# How long the job takes to recover when its TaskManager is killed, with a large state restored: the time a user's
# job is not processing after a TaskManager dies (docs/SCALING.md section 4 computes it for 10 billion a day).
#
#   bench/run-recovery.sh --restored-from SAVEPOINT --restored-capacity N [--state-format bloom|fingerprints]
#                         [--records 4000000] [--span 4h] [--cluster-config ours|flink-defaults] [--out FILE]
#
# One TaskManager (4 slots), parallelism 2, exactly-once, checkpoints every 5 s, the input written once by the
# test-data generator (4 partitions). The job starts from SAVEPOINT and reads the input bounded. Once it has completed
# two checkpoints of its own, the TaskManager is killed (kill -9, deploy/local/cluster.sh kill-taskmanager) and a new
# one started at once, as a supervisor (Kubernetes, systemd) would. Measured from the kill, on REST:
#   running:         the job restored from its last checkpoint and every task RUNNING again (failure detected,
#                    restarted, state downloaded and restored; restores: how many restarts that took);
#   first checkpoint: the first checkpoint triggered after the kill completes (the job makes progress that sticks);
#   finished:        the bounded run ends; beside the same run without a kill (the first line), the time the kill cost.
# The cluster runs in RUN_DIR (default bench/target/recovery-run) and is stopped on exit.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export RUN_DIR=${RUN_DIR:-$REPO/bench/target/recovery-run}
CLUSTER=$REPO/deploy/local/cluster.sh
JOB=$REPO/deploy/local/job.sh
REST=http://127.0.0.1:${REST_PORT:-8081}
BOOTSTRAP=127.0.0.1:${KAFKA_PORT:-9092}
GENERATOR_JAR=$REPO/test-data/target/impression-test-data.jar

restored_from="" restored_capacity="" state_format=bloom records=4000000 span=4h cluster_config=ours out=""
while (($#)); do
  case $1 in
    --restored-from) restored_from=$(realpath "$2"); shift 2 ;;
    --restored-capacity) restored_capacity=$2; shift 2 ;;
    --state-format) state_format=$2; shift 2 ;;
    --records) records=$2; shift 2 ;;
    --span) span=$2; shift 2 ;;
    --cluster-config) cluster_config=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
  esac
done
[[ -n $restored_from && -n $restored_capacity ]] || { echo "--restored-from and --restored-capacity are required" >&2; exit 2; }
case $cluster_config in
  ours) ;;
  flink-defaults) export FLINK_CONFIG=$REPO/bench/conf/flink-defaults.yaml ;;
  *) echo "--cluster-config is ours or flink-defaults, got '$cluster_config'" >&2; exit 2 ;;
esac

log() { echo "[recovery $(date +%H:%M:%S)] $*" >&2; }
now_ms() { date +%s%3N; }
trap '"$CLUSTER" stop > /dev/null 2>&1 || true' EXIT

(cd "$REPO" && mvn -B -o -q -pl job,test-data -am package -DskipTests) >&2
"$CLUSTER" stop > /dev/null 2>&1 || true
rm -rf "$RUN_DIR" # TaskManager ids are never reused within a run directory: the one killed below is taskmanager-0
"$CLUSTER" start 1 >&2
"$CLUSTER" kafka-topics --create --topic input --partitions 4 --replication-factor 1 > /dev/null
java -jar "$GENERATOR_JAR" generate --count "$records" --topic input --bootstrap-servers "$BOOTSTRAP" --span "$span" \
  --truth "$RUN_DIR/truth.csv" > "$RUN_DIR/generate.log" 2>&1

# Waits until jq filter $2 on REST path $1 prints true; echoes the time in ms.
await() {
  local path=$1 filter=$2 deadline=$(($(date +%s) + 900))
  until [[ $(curl -sf "$REST$path" | jq -r "$filter" 2>/dev/null) == true ]]; do
    (($(date +%s) < deadline)) || { log "gave up waiting for $filter on $path"; exit 1; }
    sleep 0.2
  done
  now_ms
}

run() {
  local label=$1 kill=$2 job submitted killed running first_checkpoint finished
  "$CLUSTER" kafka-topics --create --topic "out-$label" --partitions 2 --replication-factor 1 > /dev/null
  "$CLUSTER" kafka-topics --create --topic "dlq-$label" --partitions 1 --replication-factor 1 > /dev/null
  submitted=$(now_ms)
  job=$("$JOB" submit --parallelism 2 --from-savepoint "$restored_from" -- --bootstrap-servers "$BOOTSTRAP" \
    --input-topic input --output-topic "out-$label" --dlq-topic "dlq-$label" --bounded --starting-offsets earliest \
    --group-id "recovery-$label" --transactional-id-prefix "recovery-$label" --capacity "$restored_capacity" \
    --state-format "$state_format" --parallelism 2 --checkpoint-interval 5s 2> "$RUN_DIR/submit-$label.log")
  if [[ $kill == yes ]]; then
    await "/jobs/$job/checkpoints" '.counts.completed >= 2' > /dev/null
    local restored
    restored=$(curl -sf "$REST/jobs/$job/checkpoints" | jq '.counts.restored')
    killed=$(now_ms)
    "$CLUSTER" kill-taskmanager 0 >&2
    "$CLUSTER" start-taskmanager >&2
    # Right after the kill the JobManager still shows every task RUNNING: first the restore from a checkpoint, then
    # every task running again.
    await "/jobs/$job/checkpoints" ".counts.restored > $restored" > /dev/null
    running=$(await "/jobs/$job" '[.vertices[].status] | all(. == "RUNNING")')
    first_checkpoint=$(await "/jobs/$job/checkpoints" \
      "[.history[] | select(.status == \"COMPLETED\" and .trigger_timestamp > $killed)] | length > 0")
    finished=$(await "/jobs/$job" '.state == "FINISHED"')
    printf '%s\t%.1f\t%.1f\t%.1f\t%.1f\t%s\n' "$label" "$(bc -l <<< "($finished - $submitted) / 1000")" \
      "$(bc -l <<< "($running - $killed) / 1000")" "$(bc -l <<< "($first_checkpoint - $killed) / 1000")" \
      "$(bc -l <<< "($finished - $killed) / 1000")" \
      "$(($(curl -sf "$REST/jobs/$job/checkpoints" | jq '.counts.restored') - restored))"
  else
    finished=$(await "/jobs/$job" '.state == "FINISHED"')
    printf '%s\t%.1f\t\t\t\t\n' "$label" "$(bc -l <<< "($finished - $submitted) / 1000")"
  fi
  log "$label done (job $job)"
}

report() {
  echo "bench/run-recovery.sh --restored-from $restored_from --restored-capacity $restored_capacity --state-format $state_format" \
    "--records $records --span $span --cluster-config $cluster_config ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$REPO" rev-parse --short HEAD))"
  echo "One TaskManager, 4 slots, parallelism 2, checkpoints every 5 s; savepoint $(du -sh "$restored_from" | cut -f1)."
  echo "Seconds: total from submission to FINISHED; from the kill to every task RUNNING, to the first checkpoint completed"
  echo "after it, and to FINISHED."
  printf 'run\ttotal\tkill->running\tkill->first checkpoint\tkill->finished\trestores\n'
  run no-kill no
  run kill yes
}

if [[ -n $out ]]; then
  report | tee "$out"
else
  report
fi
