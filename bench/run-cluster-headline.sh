#!/usr/bin/env bash
# The headline throughput on the standalone cluster of deploy/local/cluster.sh (Kafka, JobManager and
# TaskManager in separate JVMs), every job submitted over REST (deploy/local/job.sh) as users do.
#
#   bench/run-cluster-headline.sh [--rounds N] [--small 1000000] [--large 4000000] [--out FILE] [--profile DIR]
#                                 [--variants "V ..."] [--before-jar JAR] [--delayed-share S]
#                                 [--restored-from SAVEPOINT --restored-capacity N [--restored-variant LABEL=ARGS ...]
#                                  [--restored-variant-from LABEL=SAVEPOINT ...] [--restored-args ARGS]]
#                                 [--tm-task-heap SIZE] [--span DURATION] [--flink-conf 'KEY: VALUE' ...]
#                                 [--cluster-config ours|flink-defaults] [--capacity N] [--warmup N]
#
# Variants: byte-pass-through (source to sink, nothing else), keyed-pass-through (the same across a
# keyBy: the floor of any keyed job), parse-pass-through (this job's whole topology without its dedup
# state), dedup-rocksdb and dedup-hashmap (this job), dedup-fingerprints-rocksdb and dedup-fingerprints-hashmap (this
# job with --state-format fingerprints), exact-rocksdb (the peer: exact keyed state), sql-rocksdb
# (the other peer: Flink SQL's keep-first deduplication on (request id, ad id), ROW_NUMBER() over processing time,
# the retention as table.exec.state.ttl).
#
# One input topic per size (4 partitions), filled once by the test-data generator. Each run reads one
# of them bounded, at parallelism 2, exactly-once, checkpoints every 5 s, into fresh output topics
# (deleted after the run). Its time is Flink's own job duration (REST /jobs/<id> duration: creation to
# FINISHED); also recorded: the time from the jar upload to the end, and the CPU the TaskManager and the
# broker used meanwhile (/proc), which moves far less than times with what else the machine runs, with the part the
# TaskManager's JIT compiler threads took (jit_cpu_ticks: a 1M/4M pair's steady window holds part of each job's
# compilation; --small 4000000 --large 16000000 measures past it).
# Rounds interleave the variants, each round starting one variant further along the list (no variant always
# runs first). Why two sizes: t(small) and t(large) give the steady rate, (large - small) / (t_large - t_small),
# free of the fixed cost (scheduling, task and state start-up, the last checkpoint), which is t_small - small / steady.
#
# The cluster is one TaskManager with 4 slots and 1024m metaspace (config.yaml's 2 and 256m, raised in
# this run's own copy) in RUN_DIR (default bench/target/cluster-headline-run), on the fixed ports
# 8081/9092; it is stopped on exit, also after a failure. The baselines run from
# bench/target/cluster-baselines.jar: the dedup job's shaded jar (Flink provided; it already holds the
# Kafka connector and the job's classes) plus the bench classes of the baselines (ClusterBaselineJobs).
# The cluster's class path has the Table API and planner (deploy/cluster/pom.xml's profile table, as a Flink
# distribution's lib/ has them) for sql-rocksdb; the other jobs do not load them.
#
# --profile DIR: after the timed rounds, one more run of each variant at the large size with a JFR
# recording of the TaskManager (settings "profile") and its threads' CPU read from /proc;
# DIR/<variant>.txt is its CPU per record by stage (bench/profile/stages.py), DIR/summary.md all of
# them side by side (bench/profile/side_by_side.py). These runs are not in the timings (JFR costs a
# little). --rounds 0 --profile DIR profiles only.
# --variants: a subset of the variants above (default: all).
# --before-jar JAR: a dedup-job.jar of an earlier commit; each dedup variant then also runs from it, as
# <variant>-before, interleaved in the same rounds: a change's own before and after on the same
# cluster and data.
# --delayed-share 0.01: the inputs come with that share of requests from delayed clients (written 1 to
# 20 h after their event time, the generator's defaults).
# --restored-from SAVEPOINT --restored-capacity N: adds the variant dedup-rocksdb-restored, this job on
# RocksDB started from SAVEPOINT (e.g. one `dedup-tools.jar bootstrap` wrote with 50M impressions) with
# --capacity N (the plan it was written with), reading the same inputs: the speed with a large state.
# --restored-args ARGS: job arguments of dedup-rocksdb-restored itself (e.g. "--state-format fingerprints" for a
# savepoint bootstrapped in that format), also of its -before run: one format's before and after without other variants.
# --restored-variant LABEL=ARGS (repeatable): one more restored variant, dedup-rocksdb-restored-LABEL, with the
# job arguments ARGS added (e.g. cache256m="--page-cache-bytes 256mb"): settings measured side by side.
# --restored-variant-from LABEL=SAVEPOINT: that variant starts from SAVEPOINT instead (e.g. fp="--state-format
# fingerprints" from a savepoint bootstrapped in that format): both formats at the same size in one run.
# --span DURATION: the event time the inputs cover (the generator's --span, default 4d). With a large restored
# state, give the span that plan's traffic would take for these records (25M a day: 4M records in about 4h):
# over the default 4 days the watermark crosses three midnights in a two-minute run, and each bucket expiry
# rewrites every page group that holds a page of the expired bucket, i.e. the whole state, once a day in
# production but three times in one run here.
# --flink-conf 'KEY: VALUE' (repeatable): a line added to the cluster's config.yaml, for settings an operator
# makes cluster-wide, such as state.backend.rocksdb.* options; they apply to every variant of the run.
# --cluster-config flink-defaults: the cluster starts from bench/conf/flink-defaults.yaml, Flink's own defaults
# (what a user's cluster has: no RocksDB options, TaskManager process 1728m, metaspace 256m), with 4 slots, instead
# of deploy/conf/config.yaml (ours, the default); --tm-task-heap does not apply there.
# --capacity N: the plan of the job's variants that start without state (--capacity, default 1000000; issue 36's small
# state is 1500000).
# --warmup N: N untimed rounds first, each variant once at the small size. A fresh TaskManager compiles Flink's and the
# state backend's own code during its first jobs (the first round's runs took up to 1.8x the CPU of the last's for the same
# input), where a user's long-running cluster has it compiled; each job still compiles its own classes, as users' do.
# --tm-task-heap SIZE: the TaskManager's task heap (taskmanager.memory.task.heap.size, config.yaml's 384m by
# default; the process size grows with it), for settings that need more heap, such as a larger --page-cache-bytes.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export RUN_DIR=${RUN_DIR:-$REPO/bench/target/cluster-headline-run}
export FLINK_CLASSPATH_PROFILES=table
CLUSTER=$REPO/deploy/local/cluster.sh
JOB=$REPO/deploy/local/job.sh
REST=http://127.0.0.1:${REST_PORT:-8081}
BOOTSTRAP=127.0.0.1:${KAFKA_PORT:-9092}
DEDUP_JAR=$REPO/job/target/dedup-job.jar
BASELINE_JAR=$REPO/bench/target/cluster-baselines.jar
GENERATOR_JAR=$REPO/test-data/target/impression-test-data.jar
BASELINE_CLASS=io.impressiondedup.bench.e2e.ClusterBaselineJobs
PARALLELISM=2
# Planned for the large input (about 0.8 unique impressions per record over the generator's 4-day span),
# the same for both sizes so that only the record count differs between t(small) and t(large).
CAPACITY=1000000

rounds=1 warmup=0 small=1000000 large=4000000 out="" profile="" variants="" before_jar="" delayed_share=0 restored_from="" restored_capacity=""
tm_task_heap_mb=384 span=4d cluster_config=ours
flink_conf=()
declare -A RESTORED_ARGS=()
restored_base_args=""
declare -A RESTORED_FROM=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --small) small=$2; shift 2 ;;
    --large) large=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --profile) profile=$(realpath -m "$2"); shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    --before-jar) before_jar=$(realpath "$2"); shift 2 ;;
    --delayed-share) delayed_share=$2; shift 2 ;;
    --restored-from) restored_from=$(realpath "$2"); shift 2 ;;
    --restored-capacity) restored_capacity=$2; shift 2 ;;
    --restored-variant)
      [[ $2 =~ ^([A-Za-z0-9]+)=(.*)$ ]] || { echo "--restored-variant takes LABEL=ARGS (LABEL letters and digits), got '$2'" >&2; exit 2; }
      RESTORED_ARGS[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
    --restored-args) restored_base_args=$2; shift 2 ;;
    --restored-variant-from)
      [[ $2 =~ ^([A-Za-z0-9]+)=(.+)$ ]] || { echo "--restored-variant-from takes LABEL=SAVEPOINT, got '$2'" >&2; exit 2; }
      RESTORED_FROM[${BASH_REMATCH[1]}]=$(realpath "${BASH_REMATCH[2]}"); shift 2 ;;
    --span) span=$2; shift 2 ;;
    --flink-conf)
      [[ $2 =~ ^[a-z0-9.-]+:\ .+$ ]] || { echo "--flink-conf takes 'key: value', got '$2'" >&2; exit 2; }
      flink_conf+=("$2"); shift 2 ;;
    --cluster-config)
      [[ $2 == ours || $2 == flink-defaults ]] || { echo "--cluster-config takes ours or flink-defaults, got '$2'" >&2; exit 2; }
      cluster_config=$2; shift 2 ;;
    --warmup)
      [[ $2 =~ ^[0-9]+$ ]] || { echo "--warmup takes a number of rounds, got '$2'" >&2; exit 2; }
      warmup=$2; shift 2 ;;
    --capacity)
      [[ $2 =~ ^[1-9][0-9]*$ ]] || { echo "--capacity takes a positive number of impressions, got '$2'" >&2; exit 2; }
      CAPACITY=$2; shift 2 ;;
    --tm-task-heap)
      [[ $2 =~ ^[0-9]+m$ ]] || { echo "--tm-task-heap takes a size in megabytes like 1024m, got '$2'" >&2; exit 2; }
      tm_task_heap_mb=${2%m}; shift 2 ;;
    *) sed -n '2,72p' "$0"; exit 2 ;;
  esac
done
[[ $cluster_config == ours || $tm_task_heap_mb == 384 ]] || { echo "--tm-task-heap applies to --cluster-config ours only" >&2; exit 2; }
[[ $cluster_config == flink-defaults ]] && export FLINK_CONFIG=$REPO/bench/conf/flink-defaults.yaml
[[ $rounds =~ ^[0-9]+$ ]] || { echo "--rounds must be a non-negative integer, got '$rounds'" >&2; exit 2; }
[[ $rounds -gt 0 || -n $profile ]] || { echo "--rounds 0 needs --profile" >&2; exit 2; }
((small < large)) || { echo "--small ($small) must be below --large ($large)" >&2; exit 2; }

log() { printf '[headline %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

ALL_VARIANTS=(byte-pass-through keyed-pass-through parse-pass-through dedup-rocksdb dedup-hashmap dedup-fingerprints-rocksdb
  dedup-fingerprints-hashmap exact-rocksdb sql-rocksdb)
read -r -a VARIANTS <<< "${variants:-${ALL_VARIANTS[*]}}"
for variant in "${VARIANTS[@]}"; do
  [[ " ${ALL_VARIANTS[*]} " == *" $variant "* ]] || { echo "unknown variant '$variant' (one of: ${ALL_VARIANTS[*]})" >&2; exit 2; }
done
if [[ -n $restored_from ]]; then
  [[ -n $restored_capacity ]] || { echo "--restored-from needs --restored-capacity (the --capacity it was written with)" >&2; exit 2; }
  VARIANTS+=(dedup-rocksdb-restored)
  for label in $(printf '%s\n' "${!RESTORED_ARGS[@]}" | sort); do
    VARIANTS+=("dedup-rocksdb-restored-$label")
  done
elif ((${#RESTORED_ARGS[@]} > 0)); then
  echo "--restored-variant needs --restored-from" >&2; exit 2
fi
if [[ -n $before_jar ]]; then
  for variant in "${VARIANTS[@]}"; do
    [[ $variant == dedup-* ]] && VARIANTS+=("$variant-before")
  done
  BEFORE_JAR=$REPO/bench/target/dedup-job-before.jar
  mkdir -p "$REPO/bench/target" && cp "$before_jar" "$BEFORE_JAR"
fi
# variant -> jar, entry class, state backend (the baselines keep no state: heap, the lightest)
jar_of() { case $1 in dedup-*-before) echo "$BEFORE_JAR" ;; dedup-*) echo "$DEDUP_JAR" ;; *) echo "$BASELINE_JAR" ;; esac; }
entry_of() {
  case $1 in
    byte-pass-through) echo "$BASELINE_CLASS\$BytePassThroughJob" ;;
    keyed-pass-through) echo "$BASELINE_CLASS\$KeyedPassThroughJob" ;;
    parse-pass-through) echo "$BASELINE_CLASS\$ParsePassThroughJob" ;;
    exact-rocksdb) echo "$BASELINE_CLASS\$ExactKeyedStateJob" ;;
    sql-rocksdb) echo "$BASELINE_CLASS\$SqlKeepFirstJob" ;;
    *) echo io.impressiondedup.job.DedupJob ;;
  esac
}
backend_of() { case $1 in *-rocksdb*) echo rocksdb ;; *) echo hashmap ;; esac; }

log "building (bench and what it needs, offline)"
(cd "$REPO" && mvn -B -o -q -pl bench -am package -DskipTests) >&2
cp "$DEDUP_JAR" "$BASELINE_JAR"
(cd "$REPO/bench/target/classes" && jar uf "$BASELINE_JAR" io/impressiondedup/bench/e2e/BytePassThrough*.class \
  io/impressiondedup/bench/e2e/ParsePassThrough*.class io/impressiondedup/bench/e2e/ExactKeyedStage*.class \
  io/impressiondedup/bench/e2e/SqlKeepFirstStage*.class \
  io/impressiondedup/bench/operator/ExactDedupFunction*.class \
  io/impressiondedup/bench/e2e/ClusterBaselineJobs*.class)

WORK=$RUN_DIR/headline
"$CLUSTER" stop
# A fresh run directory (Kafka data, checkpoints, logs), keeping only the classpaths Maven resolved.
mkdir -p "$RUN_DIR"
find "$RUN_DIR" -mindepth 1 -maxdepth 1 ! -name 'classpath-*' -exec rm -rf {} +
mkdir -p "$WORK"
RESULTS=$WORK/runs.tsv
: > "$RESULTS"
# Per run: the checkpoints it completed and the bytes they uploaded (REST checkpoint statistics: checkpointed_size is
# what each checkpoint added, the incremental delta on RocksDB), and the records it wrote to the output topic.
CHECKPOINTS=$WORK/checkpoints.tsv
: > "$CHECKPOINTS"

trap '"$CLUSTER" stop || true' EXIT
# --flink-conf lines go into the configuration the cluster starts from, so that the JobManager reads them too (e.g.
# web.checkpoints.history, which the REST checkpoint statistics below depend on), not only the TaskManager.
if ((${#flink_conf[@]} > 0)); then
  cp "${FLINK_CONFIG:-$REPO/deploy/conf/config.yaml}" "$WORK/config-source.yaml"
  printf '%s\n' "${flink_conf[@]}" >> "$WORK/config-source.yaml"
  export FLINK_CONFIG=$WORK/config-source.yaml
fi
log "starting Kafka and the JobManager"
"$CLUSTER" start 0
if [[ $cluster_config == ours ]]; then
  # The process size is the sum of config.yaml's components (1600m), plus the metaspace and task heap added here.
  tm_process_size=$((1600 + 768 + tm_task_heap_mb - 384))m
  # Metaspace 256m -> 1024m (and the process size with it): every job submitted to the session loads its jar in a
  # class loader of its own. The dedup job's leaves nothing behind (deploy/README.md, "Session clusters"), but a
  # --before-jar built before its exactly-once writer closed its Kafka admin client keeps ~15 MB a job (at 256m a
  # 3-round run died of "OutOfMemoryError: Metaspace" at the 21st job), and the SQL peer's jobs were not measured.
  sed -i -e 's/^  numberOfTaskSlots: .*/  numberOfTaskSlots: 4/' -e "s/^      size: 1600m\$/      size: $tm_process_size/" \
    -e '/jvm-metaspace:/{n;s/^      size: 256m$/      size: 1024m/}' \
    -e "/^    task:/{n;n;s/^        size: 384m\$/        size: ${tm_task_heap_mb}m/}" "$RUN_DIR/conf/config.yaml"
  for setting in '  numberOfTaskSlots: 4' "      size: $tm_process_size" '      size: 1024m' "        size: ${tm_task_heap_mb}m"; do
    grep -qx "$setting" "$RUN_DIR/conf/config.yaml" || { log "could not set '$setting' in $RUN_DIR/conf/config.yaml"; exit 1; }
  done
else
  tm_process_size=1728m
  grep -qx '  numberOfTaskSlots: 4' "$RUN_DIR/conf/config.yaml" || { log "flink-defaults.yaml lost its 4 slots"; exit 1; }
fi
# JFR's default stack depth (64) cuts a task thread's stacks before the operator that called.
TASKMANAGER_JVM_OPTS="-XX:FlightRecorderOptions:stackdepth=512" "$CLUSTER" start-taskmanager
slots=0
for _ in $(seq 1 60); do  # the TaskManager registers before its slots show in the overview
  slots=$(curl -sf "$REST/overview" | jq -r '."slots-total"')
  ((slots > 0)) && break
  sleep 0.5
done
log "cluster up: $slots slots"

topics() { "$CLUSTER" kafka-topics "$@" 2>> "$WORK/kafka-topics.log" || { log "kafka-topics $* failed: $WORK/kafka-topics.log"; exit 1; }; }

for size in "$small" "$large"; do
  topics --create --topic "input-$size" --partitions 4 --replication-factor 1 > /dev/null
  log "generating $size records into input-$size"
  start=$SECONDS
  java -jar "$GENERATOR_JAR" generate --count "$size" --topic "input-$size" --bootstrap-servers "$BOOTSTRAP" --delayed-share "$delayed_share" --span "$span" \
    --truth "$WORK/truth-$size.csv" > "$WORK/generate-$size.log" 2>&1 || { log "generation failed: $WORK/generate-$size.log"; exit 1; }
  log "generated $size records in $((SECONDS - start)) s"
done

# end_offsets <topic>: the sum of its partitions' end offsets (records plus one transaction marker per
# committed transaction and partition), a check that a run wrote what it read.
end_offsets() {
  java -cp "$(cat "$RUN_DIR"/classpath-kafka-*.txt)" -Dlog4j2.configurationFile="file:$RUN_DIR/conf/log4j2.properties" \
    -Dlog.file="$RUN_DIR/logs/get-offsets.log" org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" \
    --topic "$1" 2>> "$WORK/get-offsets.log" | awk -F: '{ sum += $3 } END { print sum + 0 }'
}

CLOCK_TICKS=$(getconf CLK_TCK)
# process_cpu_ticks <name>: user + system CPU of the cluster process <name> (its pid file), in clock ticks.
process_cpu_ticks() {
  local stat
  stat=$(cat "/proc/$(cat "$RUN_DIR/pids/$1.pid")/stat")
  awk '{ print $12 + $13 }' <<< "${stat##*) }" # utime and stime, fields 14 and 15 of stat, after "pid (comm) "
}

# jit_cpu_ticks <name>: user + system CPU of the JIT compiler threads ("C1 CompilerThread0", "C2 CompilerThread0", ...) of the
# cluster process <name>, in clock ticks. Each job loads its classes anew (its own class loader), so each compiles them anew:
# on this machine 7-30 s of CPU a job (7-16 s after a warm-up round), still going when a 4M-record run ends. HotSpot keeps
# the first compiler thread of each kind for the JVM's life (2 threads here); threads it adds under load and retires take
# their CPU with them, so with more compiler threads this is a lower bound.
jit_cpu_ticks() {
  local pid ticks=0 task comm stat fields
  pid=$(cat "$RUN_DIR/pids/$1.pid")
  for task in /proc/"$pid"/task/*; do
    { read -r comm < "$task/comm"; } 2> /dev/null || continue
    [[ $comm == C[12]\ CompilerThre* ]] || continue
    { stat=$(< "$task/stat"); } 2> /dev/null || continue
    read -r -a fields <<< "${stat##*) }"
    ticks=$((ticks + fields[11] + fields[12])) # utime and stime, fields 14 and 15 of stat
  done
  echo "$ticks"
}

# run <variant> <size> <round>: one bounded run; appends "variant size round seconds" to $RESULTS.
run() {
  local variant=$1 size=$2 round=$3
  local id="$variant-$size-r$round"
  topics --create --topic "out-$id" --partitions "$PARALLELISM" --replication-factor 1 > /dev/null
  topics --create --topic "dlq-$id" --partitions 1 --replication-factor 1 > /dev/null
  local job submitted_ms tm_cpu_before broker_cpu_before jit_cpu_before
  submitted_ms=$(date +%s%3N)
  tm_cpu_before=$(process_cpu_ticks taskmanager-0) broker_cpu_before=$(process_cpu_ticks kafka) jit_cpu_before=$(jit_cpu_ticks taskmanager-0)
  local restore=() capacity=$CAPACITY extra=()
  if [[ $variant == dedup-rocksdb-restored* ]]; then
    restore=(--from-savepoint "$restored_from") capacity=$restored_capacity
    local label=${variant%-before}
    label=${label#dedup-rocksdb-restored}
    [[ -n $label ]] && read -r -a extra <<< "${RESTORED_ARGS[${label#-}]}"
    [[ -z $label ]] && read -r -a extra <<< "$restored_base_args"
    [[ -n $label && -n ${RESTORED_FROM[${label#-}]:-} ]] && restore=(--from-savepoint "${RESTORED_FROM[${label#-}]}")
  fi
  [[ $variant == dedup-fingerprints-* ]] && extra+=(--state-format fingerprints)
  job=$(JAR=$(jar_of "$variant") ENTRY_CLASS=$(entry_of "$variant") "$JOB" submit --parallelism "$PARALLELISM" "${restore[@]}" -- \
    --bootstrap-servers "$BOOTSTRAP" --input-topic "input-$size" --output-topic "out-$id" --dlq-topic "dlq-$id" \
    --bounded --starting-offsets earliest --group-id "bench-$id" --transactional-id-prefix "bench-$id" \
    --capacity "$capacity" --parallelism "$PARALLELISM" --state-backend "$(backend_of "$variant")" \
    --checkpoint-interval 5s "${extra[@]}" 2> "$WORK/submit-$id.log") || { log "$id: submission failed: $(tail -n 3 "$WORK/submit-$id.log")"; exit 1; }
  local state
  while true; do
    state=$("$JOB" status "$job")
    case $state in
      FINISHED) break ;;
      FAILED|CANCELED|RESTARTING|FAILING)
        log "$id: job $job is $state: $(curl -sf "$REST/jobs/$job/exceptions" | jq -r '."root-exception"' | head -c 2000)"
        exit 1 ;;
    esac
    sleep 0.5
  done
  local written
  written=$(( $(end_offsets "out-$id") + $(end_offsets "dlq-$id") ))
  if [[ $variant == *pass-through ]] && ((written < size)); then
    log "$id: the output holds $written offsets, fewer than the $size records read"
    exit 1
  fi
  local millis end_ms tm_cpu broker_cpu jit_cpu
  tm_cpu=$(( $(process_cpu_ticks taskmanager-0) - tm_cpu_before )) broker_cpu=$(( $(process_cpu_ticks kafka) - broker_cpu_before ))
  jit_cpu=$(( $(jit_cpu_ticks taskmanager-0) - jit_cpu_before ))
  read -r millis end_ms < <(curl -sf "$REST/jobs/$job" | jq -r '"\(.duration) \(."end-time")"')
  # seconds: Flink's job duration; from_submit: from the jar upload (what a user waits, main() and its checks included) to the end
  # CPU seconds of the TaskManager and of the broker from submission to the end (/proc: user + system): unlike
  # times, what a run costs in CPU hardly moves with what else the shared machine runs; then the part of the TaskManager's
  # that its JIT compiler threads took (jit_cpu_ticks).
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$variant" "$size" "$round" "$(awk -v ms="$millis" 'BEGIN { printf "%.3f", ms / 1000 }')" \
    "$(awk -v ms="$((end_ms - submitted_ms))" 'BEGIN { printf "%.3f", ms / 1000 }')" \
    "$(awk -v t="$tm_cpu" -v hz="$CLOCK_TICKS" 'BEGIN { printf "%.2f", t / hz }')" \
    "$(awk -v t="$broker_cpu" -v hz="$CLOCK_TICKS" 'BEGIN { printf "%.2f", t / hz }')" \
    "$(awk -v t="$jit_cpu" -v hz="$CLOCK_TICKS" 'BEGIN { printf "%.2f", t / hz }')" >> "$RESULTS"
  log "$id: $(awk -v ms="$millis" -v n="$size" 'BEGIN { printf "%.1f s, %.0f records/s", ms / 1000, n * 1000 / ms }'), $written output offsets (job $job)"
  curl -sf "$REST/jobs/$job/checkpoints" | jq -r --arg v "$variant" --arg s "$size" --arg r "$round" --arg w "$written" \
    '[.history[] | select(.status == "COMPLETED")] | sort_by(.id) | "\($v)\t\($s)\t\($r)\t\(length)\t\(map(.checkpointed_size) | add // 0)\t\($w)\t\(map(.state_size) | max // 0)\t\(.[0].checkpointed_size // 0)"' \
    >> "$CHECKPOINTS" || true
  topics --delete --topic "out-$id" > /dev/null
  topics --delete --topic "dlq-$id" > /dev/null
}

# Untimed rounds first (--warmup): their runs go to files of their own, not into the figures.
timed_results=$RESULTS timed_checkpoints=$CHECKPOINTS
RESULTS=$WORK/warmup-runs.tsv CHECKPOINTS=$WORK/warmup-checkpoints.tsv
for ((round = 1; round <= warmup; round++)); do
  for variant in "${VARIANTS[@]}"; do
    run "$variant" "$small" "w$round"
  done
done
RESULTS=$timed_results CHECKPOINTS=$timed_checkpoints

# Each round starts one variant further along the list: a variant's place in a round (after which runs, how warm the
# TaskManager is) moves from round to round instead of favouring the same variant every time.
for ((round = 1; round <= rounds; round++)); do
  for ((i = 0; i < ${#VARIANTS[@]}; i++)); do
    variant=${VARIANTS[(i + round - 1) % ${#VARIANTS[@]}]}
    for size in "$small" "$large"; do
      run "$variant" "$size" "$round"
    done
  done
done

if [[ -n $profile ]]; then
  mkdir -p "$profile"
  tm_pid=$(cat "$RUN_DIR/pids/taskmanager-0.pid")
  RESULTS=$WORK/profile-runs.tsv
  for variant in "${VARIANTS[@]}"; do
    python3 "$REPO/bench/profile/thread_cpu.py" "$tm_pid" > "$WORK/cpu-before-$variant.json"
    python3 "$REPO/bench/profile/thread_cpu.py" --follow "$tm_pid" "$WORK/cpu-after-$variant.json" &
    follower=$!
    jcmd "$tm_pid" JFR.start name=stages settings=profile filename="$WORK/$variant.jfr" > /dev/null
    run "$variant" "$large" profile
    jcmd "$tm_pid" JFR.stop name=stages > /dev/null
    kill -TERM "$follower" && wait "$follower"
    jfr print --json --events jdk.ExecutionSample,jdk.NativeMethodSample "$WORK/$variant.jfr" > "$WORK/$variant.json"
    { echo "# $variant, $large records, parallelism $PARALLELISM, one TaskManager (bench/run-cluster-headline.sh --profile)"
      python3 "$REPO/bench/profile/stages.py" "$WORK/$variant.json" "$WORK/cpu-before-$variant.json" \
        "$WORK/cpu-after-$variant.json" "$large"; } > "$profile/$variant.txt"
    rm -f "$WORK/$variant.json"
    log "profile of $variant: $profile/$variant.txt"
  done
  python3 "$REPO/bench/profile/side_by_side.py" "$profile" "${VARIANTS[@]}" > "$profile/summary.md"
  log "profiles side by side: $profile/summary.md"
  RESULTS=$WORK/runs.tsv
fi

report() {
  echo "Variants: ${VARIANTS[*]}; $rounds round(s) after $warmup untimed, interleaved, each round starting one variant further along; inputs of $small and $large records (4 partitions, delayed-client share $delayed_share, event time over $span); --capacity $CAPACITY where not restored;"
  echo "cluster configuration: $cluster_config; parallelism $PARALLELISM, exactly-once, checkpoints every 5 s; 1 TaskManager, $slots slots, task heap ${tm_task_heap_mb}m, process size $tm_process_size; time = Flink's job duration (REST)."
  for line in "${flink_conf[@]}"; do
    echo "config.yaml: $line"
  done
  [[ -n $restored_base_args ]] && echo "dedup-rocksdb-restored: the job with $restored_base_args, from $restored_from"
  for label in $(printf '%s\n' "${!RESTORED_ARGS[@]}" | sort); do
    echo "dedup-rocksdb-restored-$label: the restored variant with ${RESTORED_ARGS[$label]}${RESTORED_FROM[$label]:+, from ${RESTORED_FROM[$label]}}"
  done
  echo "steady = ($large - $small) / (t_large - t_small) on the medians; fixed = t_small - $small / steady."
  echo
  python3 "$REPO/bench/cluster_report.py" "$RESULTS" "$small" "$large" "${VARIANTS[@]}"
  echo
  echo "Checkpoints per run (REST statistics; bytes = the sum of each completed checkpoint's checkpointed_size, what it uploaded;"
  echo "largest full = the largest state_size, a checkpoint's whole state with what it shares with earlier ones;"
  echo "the REST history keeps the last web.checkpoints.history checkpoints of a job, 10 by default: raise it with --flink-conf;"
  echo "after the first = the bytes of every checkpoint but the job's first, which after a restore uploads the restored state"
  echo "whole, per output offset of the run: the output before the first checkpoint, its first seconds, is in the denominator):"
  printf 'variant\tsize\tround\tcheckpoints\tbytes\toutput offsets\tbytes per output offset\tlargest full\tfirst\tafter the first per output offset\n'
  awk -F'\t' '{ printf "%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%.2f\n", $1, $2, $3, $4, $5, $6, ($6 > 0 ? $5 / $6 : 0), $7, $8,
    ($6 > 0 ? ($5 - $8) / $6 : 0) }' "$CHECKPOINTS"
}

if ((rounds == 0)); then
  exit 0
elif [[ -n $out ]]; then
  report | tee "$out"
else
  report
fi
