#!/usr/bin/env bash
# End-to-end benchmarks: builds the project, starts a Kafka broker of its own (deploy/local/cluster.sh
# start-kafka, on ports 19092/19093 under bench/target/e2e/kafka), runs every comparison and writes
# docs/BENCHMARKS-MINICLUSTER.md with docs/img/*.png. The broker is stopped on exit, also after a failure.
#
#   bench/run-e2e.sh                        the full report (about 70 minutes on 2 cores)
#   bench/run-e2e.sh --records 300000 --runs 1 --scaling 100000,300000 --out /tmp/bench-smoke
#   bench/run-e2e.sh --help                 every option
#
# Needs redis-server (the Debian package redis-server; installed with apt-get if missing).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO"
WORK=$REPO/bench/target/e2e
export RUN_DIR=${RUN_DIR:-$WORK/kafka}
export KAFKA_PORT=${KAFKA_PORT:-19092}
export CONTROLLER_PORT=${CONTROLLER_PORT:-19093}
# bench/run-headline.sh runs another main (E2E_MAIN) on the same broker and classpath.
MAIN=${E2E_MAIN:-io.impressiondedup.bench.e2e.EndToEndBenchmark}

mkdir -p "$WORK"
mvn -B -q -DskipTests -pl bench -am package dependency:build-classpath \
  -Dmdep.outputFile="$WORK/classpath.txt" -Dmdep.includeScope=test
run() {
  # The JVM's temporary files (Flink's web upload directory, RocksDB's native library) stay under $WORK.
  mkdir -p "$WORK/tmp"
  # Java 17 needs the opens Flink's own scripts pass (.mvn/jvm.config holds them for Maven's JVM, beside Maven's JIT).
  # shellcheck disable=SC2046
  java -Xmx6g -Djava.io.tmpdir="$WORK/tmp" $(grep -oE -- '-XX:\+IgnoreUnrecognizedVMOptions|--add-(opens|exports)=[^ ]+' .mvn/jvm.config | tr '\n' ' ') -Dlog4j.configurationFile="$REPO/local/src/main/resources/local-run-log4j2.properties" \
    -cp "$REPO/bench/target/classes:$(cat "$WORK/classpath.txt")" "$MAIN" "$@"
}
for arg in "$@"; do
  if [[ $arg == --help || $arg == -h ]]; then run --help; exit 0; fi
done

if [[ -z ${E2E_MAIN:-} ]] && ! command -v redis-server > /dev/null; then
  echo "redis-server not found: installing the Debian package"
  SUDO=; [[ $(id -u) == 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server > /dev/null
fi

deploy/local/cluster.sh stop > /dev/null 2>&1 || true
rm -rf "$WORK/run"
rm -rf "$RUN_DIR"
trap 'deploy/local/cluster.sh stop' EXIT
deploy/local/cluster.sh start-kafka
if [[ -n ${E2E_MAIN:-} ]]; then
  run --bootstrap-servers "127.0.0.1:$KAFKA_PORT" --work-dir "$WORK/run" "$@"
else
  run --bootstrap-servers "127.0.0.1:$KAFKA_PORT" --work-dir "$WORK/run" --redis-server "$(command -v redis-server)" "$@"
fi
