#!/usr/bin/env python3
"""The headline table of bench/run-cluster-headline.sh from its runs file.

    cluster_report.py RUNS.tsv SMALL LARGE VARIANT...

RUNS.tsv: variant, records, round, Flink's job duration in seconds, seconds from the jar upload to the
job's end (optional). Medians over rounds; steady rate from the two sizes, fixed cost from the small one.
"""
import statistics, sys
path, small, large, variants = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
times, waits = {}, {}
for line in open(path):
    variant, size, _, seconds, *from_submit = line.rstrip("\n").split("\t")
    times.setdefault((variant, int(size)), []).append(float(seconds))
    waits.setdefault((variant, int(size)), []).append(float(from_submit[0]) if from_submit else float("nan"))
def ratio(v, baseline):
    return f"{steady[v] / steady[baseline]:.2f}" if baseline in steady else "n/a"
def cell(ts):
    return f"{statistics.median(ts):7.1f} ({min(ts):.1f}-{max(ts):.1f})"
steady = {}
for v in variants:
    gap = statistics.median(times[v, large]) - statistics.median(times[v, small])
    steady[v] = (large - small) / gap if gap > 0 else float("nan")  # no larger time: the sizes are too close
print(f"| {'variant':<22} | {'t_small s (range)':<20} | {'t_large s (range)':<20} | {'steady rec/s':>12} | {'fixed s':>7} "
      f"| {'fixed from submit s':>19} | {'vs keyed':>8} | {'vs byte':>7} |")
print(f"|{'-'*24}|{'-'*22}|{'-'*22}|{'-'*14}|{'-'*9}|{'-'*21}|{'-'*10}|{'-'*9}|")
for v in variants:
    fixed = statistics.median(times[v, small]) - small / steady[v]
    fixed_from_submit = statistics.median(waits[v, small]) - small / steady[v]
    print(f"| {v:<22} | {cell(times[v, small]):<20} | {cell(times[v, large]):<20} | {steady[v]:12.0f} | {fixed:7.1f} "
          f"| {fixed_from_submit:19.1f} | {ratio(v, 'keyed-pass-through'):>8} | {ratio(v, 'byte-pass-through'):>7} |")
print()
print("fixed from submit: the same, from the jar upload to the job's end (main() with the job's broker checks, scheduling).")
print()
print("Runs (variant, records, round, job seconds, seconds from submit):")
for line in open(path):
    print("  " + line.rstrip("\n").replace("\t", "  "))
