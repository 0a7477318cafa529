#!/usr/bin/env bash
# End-to-end latency of the running job: impressions written at fixed rates, each stamped with
# its send time, and read back from the exactly-once output by a read_committed consumer; p50/p90/p99/max
# per variant, checkpoint interval and rate (LatencyBenchmark). Same build, broker and clean-up as
# bench/run-e2e.sh.
#
#   bench/run-latency.sh --rates 20000 --duration 60s --out bench/results/latency-20k.txt   4 runs of about 2 min, after the build
#   bench/run-latency.sh --rates 20000,50000 --checkpoint-intervals 10s                       70% of measured steady rates
#   bench/run-latency.sh --help                                                              every option
exec env E2E_MAIN=io.impressiondedup.bench.e2e.LatencyBenchmark "$(dirname "$0")/run-e2e.sh" "$@"
