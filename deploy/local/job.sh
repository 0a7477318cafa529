#!/usr/bin/env bash
# The dedup job on a running Flink session cluster, through the REST API (no Flink CLI needed).
#
#   deploy/local/job.sh submit [--parallelism N] [--from-savepoint PATH [--allow-non-restored-state]] -- JOB_ARGS...
#       uploads job/target/dedup-job.jar (building it if missing), runs it, deletes the upload, waits until all its
#       tasks run (fails with the job's root exception if it fails first), prints the job id;
#       --allow-non-restored-state skips savepoint state of operators the job does not have (the
#       stats operators of a savepoint taken with --stats-topic, restored without it)
#   deploy/local/job.sh stop-with-savepoint JOB_ID [--drain]
#       prints the savepoint's path; --drain ends event time first (every pending stats row is
#       written); the savepoint resumes like a plain one (no bucket expires, lateness is judged from
#       the last watermark of the data, rows already written get amendments)
#   deploy/local/job.sh status JOB_ID                  prints the job's state (RUNNING, FINISHED, ...)
#   deploy/local/job.sh wait-running JOB_ID            waits until every task of the job runs
#   deploy/local/job.sh cancel JOB_ID
#
# Environment: REST_PORT (8081), JAR (default job/target/dedup-job.jar), ENTRY_CLASS (default
# io.impressiondedup.job.DedupJob; the benchmark's baseline jobs have their own), RUN_DIR (for savepoints).
#
# Rescale: stop with a savepoint, then submit again with --from-savepoint and another --parallelism.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUN_DIR=${RUN_DIR:-$REPO/deploy/local/run}
REST=http://127.0.0.1:${REST_PORT:-8081}
JAR=${JAR:-$REPO/job/target/dedup-job.jar}
ENTRY_CLASS=${ENTRY_CLASS:-io.impressiondedup.job.DedupJob}

log() { printf '[job] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

rest() { # rest <method> <path> [json]
  local out
  if [[ $# -ge 3 ]]; then
    out=$(curl -sS -X "$1" -H 'Content-Type: application/json' -d "$3" "$REST$2") || die "$1 $2 failed"
  else
    out=$(curl -sS -X "$1" "$REST$2") || die "$1 $2 failed"
  fi
  if jq -e '.errors' <<< "$out" > /dev/null 2>&1; then
    # Flink's errors are whole stack traces: their first line, and the innermost cause (what went wrong).
    local errors root
    errors=$(jq -r '.errors | join("\n")' <<< "$out")
    root=$({ grep '^Caused by: ' <<< "$errors" || true; } | tail -n 1 | cut -c 1-1500)
    die "$1 $2: $(head -n 1 <<< "$errors" | cut -c 1-500)${root:+ ... root cause: ${root#Caused by: }}"
  fi
  printf '%s' "$out"
}

delete_jar() { curl -sS -X DELETE "$REST/jars/$1" > /dev/null || log "could not delete the uploaded jar $1 (GET /jars lists it)"; }

submit() {
  local parallelism="" savepoint="" allow_non_restored=false
  while [[ $# -gt 0 && $1 != -- ]]; do
    case $1 in
      --parallelism) parallelism=$2; shift 2 ;;
      --from-savepoint) savepoint=$2; shift 2 ;;
      --allow-non-restored-state) allow_non_restored=true; shift ;;
      *) die "unknown option $1 (job arguments go after --)" ;;
    esac
  done
  [[ ${1:-} == -- ]] && shift
  [[ $allow_non_restored == false || -n $savepoint ]] || die "--allow-non-restored-state needs --from-savepoint"
  if [[ ! -f $JAR ]]; then
    log "building $JAR"
    mvn -q -B -Dstyle.color=never -f "$REPO/pom.xml" install -DskipTests >&2 || die "build failed"
  fi
  local jar_id
  jar_id=$(curl -sS -X POST -F "jarfile=@$JAR" "$REST/jars/upload" | jq -r '.filename // empty' | xargs -r basename)
  [[ -n $jar_id ]] || die "uploading $JAR failed"
  local body
  body=$(jq -n --arg entry "$ENTRY_CLASS" --arg parallelism "$parallelism" --arg savepoint "$savepoint" \
    --argjson allow "$allow_non_restored" \
    --args '{entryClass: $entry, programArgsList: $ARGS.positional}
            + (if $parallelism == "" then {} else {parallelism: ($parallelism | tonumber)} end)
            + (if $savepoint == "" then {} else {savepointPath: $savepoint, allowNonRestoredState: $allow} end)' \
    -- "$@")
  # The cluster keeps an uploaded jar until it is deleted (web.upload.dir on the JobManager, 25 MB a submission); once the
  # run request has returned, the job has its own copy in the blob store, so the upload goes, the run failed or not.
  local run job_id
  run=$(rest POST "/jars/$jar_id/run" "$body") || { delete_jar "$jar_id"; exit 1; }
  delete_jar "$jar_id"
  job_id=$(jq -r .jobid <<< "$run")
  [[ -n $job_id && $job_id != null ]] || die "the cluster returned no job id"
  log "submitted job $job_id${parallelism:+ at parallelism $parallelism}${savepoint:+ from $savepoint}"
  # Returns once every task runs, so that the next command (a savepoint, say) finds the job ready.
  wait_running "$job_id"
  echo "$job_id"
}

stop_with_savepoint() {
  local job=$1 drain=false
  [[ ${2:-} == --drain ]] && drain=true
  local trigger
  trigger=$(rest POST "/jobs/$job/stop" "$(jq -n --arg dir "file://$RUN_DIR/savepoints" --argjson drain "$drain" \
    '{targetDirectory: $dir, drain: $drain}')" \
    | jq -r '."request-id"')
  for _ in $(seq 1 600); do
    local result status
    result=$(rest GET "/jobs/$job/savepoints/$trigger")
    status=$(jq -r .status.id <<< "$result")
    if [[ $status == COMPLETED ]]; then
      local location
      location=$(jq -r '.operation.location // empty' <<< "$result")
      [[ -n $location ]] || die "the savepoint failed: $(jq -c '.operation."failure-cause"' <<< "$result" | head -c 2000)"
      log "stopped job $job with savepoint $location"
      echo "$location"
      return
    fi
    sleep 0.5
  done
  die "the savepoint of job $job did not complete within 300 s"
}

status() { rest GET "/jobs/$1" | jq -r .state; }

wait_running() {
  for _ in $(seq 1 240); do
    local state
    state=$(rest GET "/jobs/$1")
    if [[ $(jq -r .state <<< "$state") == RUNNING ]] \
        && jq -e '[.vertices[].status] | all(. == "RUNNING" or . == "FINISHED")' <<< "$state" > /dev/null; then
      log "job $1 runs"
      return
    fi
    case $(jq -r .state <<< "$state") in
      FINISHED)
        log "job $1 already finished (a bounded run with little left to read)"
        return ;;
      FAILED|CANCELED)
        die "job $1 is $(jq -r .state <<< "$state") instead of running: $(rest GET "/jobs/$1/exceptions" \
          | jq -r '."root-exception" // "no exception recorded"' | head -c 3000)" ;;
    esac
    sleep 0.5
  done
  die "job $1 did not reach RUNNING within 120 s (state: $(status "$1"))"
}

command -v curl > /dev/null || die "curl is required"
command -v jq > /dev/null || die "jq is required"

case ${1:-} in
  submit) shift; submit "$@" ;;
  stop-with-savepoint) stop_with_savepoint "${2:?job id}" "${3:-}" ;;
  status) status "${2:?job id}" ;;
  wait-running) wait_running "${2:?job id}" ;;
  cancel) rest PATCH "/jobs/${2:?job id}?mode=cancel" > /dev/null; log "cancelled job $2" ;;
  *) sed -n '2,14p' "$0"; exit 2 ;;
esac
