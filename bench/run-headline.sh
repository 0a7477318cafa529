#!/usr/bin/env bash
# The headline benchmark: steady end-to-end throughput of this job (heap and RocksDB) and of a parsing
# pass-through as fractions of a byte pass-through, on the same local Flink cluster and Kafka broker
# (SteadyThroughput). Same build, broker and clean-up as bench/run-e2e.sh.
#
#   bench/run-headline.sh --out bench/results/headline.txt          3 rounds of 4M records (about 12 minutes)
#   bench/run-headline.sh --records 300000 --rounds 1               a smoke run
#   bench/run-headline.sh --help                                    every option
exec env E2E_MAIN=io.impressiondedup.bench.e2e.SteadyThroughput "$(dirname "$0")/run-e2e.sh" "$@"
