#!/usr/bin/env python3
"""The headline table of bench/run-cluster-headline.sh from its runs file.

    cluster_report.py RUNS.tsv SMALL LARGE VARIANT...

RUNS.tsv: variant, records, round, Flink's job duration in seconds, then (optional, older files lack them) seconds
from the jar upload to the job's end, CPU seconds of the TaskManager, of the broker, and of the TaskManager's JIT compiler
threads. Medians over rounds; steady rate from the two sizes, fixed cost from the small one; and each
variant against the keyed pass-through round by round (the runs of one round are minutes apart, where a median of
each size may pair a quiet small run with a busy large one).
"""
import statistics, sys
path, small, large, variants = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
times, waits, tm_cpu, broker_cpu, jit_cpu, by_round = {}, {}, {}, {}, {}, {}
for line in open(path):
    variant, size, round_, seconds, *more = line.rstrip("\n").split("\t")
    by_round[variant, int(size), round_] = float(seconds)
    more += ["nan"] * (4 - len(more))  # older runs files lack the later columns
    times.setdefault((variant, int(size)), []).append(float(seconds))
    waits.setdefault((variant, int(size)), []).append(float(more[0]))
    tm_cpu.setdefault((variant, int(size)), []).append(float(more[1]))
    broker_cpu.setdefault((variant, int(size)), []).append(float(more[2]))
    jit_cpu.setdefault((variant, int(size)), []).append(float(more[3]))
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
print("CPU per record, steady: (CPU of the large run - CPU of the small one) / (large - small), on the medians over")
print("rounds; CPU from /proc (user + system) of the TaskManager and of the broker, from submission to the end. JIT: the")
print("part of the TaskManager's CPU its JIT compiler threads took. Each job compiles its own classes anew, and that is not")
print("over when a 4M-record run ends: it does not cancel out between the sizes, and a long-running job no longer pays it.")
print()
print(f"| {'variant':<22} | {'TaskManager us/record':>21} | {'broker us/record':>16} | {'both':>6} | {'keyed / this':>12} "
      f"| {'JIT us/record':>13} | {'keyed / this without JIT':>24} |")
print(f"|{'-'*24}|{'-'*23}|{'-'*18}|{'-'*8}|{'-'*14}|{'-'*15}|{'-'*26}|")
def steady_cpu(samples, v):
    return (statistics.median(samples[v, large]) - statistics.median(samples[v, small])) * 1e6 / (large - small)
cpu = {v: (steady_cpu(tm_cpu, v), steady_cpu(broker_cpu, v)) for v in variants}
jit = {v: steady_cpu(jit_cpu, v) for v in variants}
def number(x, width):
    return f"{x:{width}.2f}" if x == x else f"{'n/a':>{width}}"
for v in variants:
    both = sum(cpu[v])
    keyed = sum(cpu["keyed-pass-through"]) / both if "keyed-pass-through" in cpu else float("nan")
    keyed_without_jit = ((sum(cpu["keyed-pass-through"]) - jit["keyed-pass-through"]) / (both - jit[v])
                         if "keyed-pass-through" in cpu else float("nan"))
    print(f"| {v:<22} | {cpu[v][0]:21.2f} | {cpu[v][1]:16.2f} | {both:6.2f} | {keyed:12.2f} | {number(jit[v], 13)} "
          f"| {number(keyed_without_jit, 24)} |")
print()
print("keyed / this: the keyed pass-through's CPU per record over this variant's, the throughput ratio on a machine")
print("that the runs keep busy.")
print()
print("fixed from submit: the same, from the jar upload to the job's end (main() with the job's broker checks, scheduling).")
print()
keyed_rounds = sorted({r for (v, _, r) in by_round if v == "keyed-pass-through"})
if keyed_rounds:
    print("Against the keyed pass-through round by round: steady rate (from the round's two runs) over the keyed pass-through's")
    print("of the same round, and the keyed pass-through's large-run time over this variant's; medians over the rounds.")
    print()
    print(f"| {'variant':<22} | {'steady vs keyed, by round':<32} | {'median':>6} | {'large wall vs keyed, by round':<32} | {'median':>6} |")
    print(f"|{'-'*24}|{'-'*34}|{'-'*8}|{'-'*34}|{'-'*8}|")
    def round_steady(v, r):
        gap = by_round.get((v, large, r), float("nan")) - by_round.get((v, small, r), float("nan"))
        return (large - small) / gap if gap > 0 else float("nan")
    for v in variants:
        pairs = [(round_steady(v, r) / round_steady("keyed-pass-through", r),
                  by_round.get(("keyed-pass-through", large, r), float("nan")) / by_round.get((v, large, r), float("nan")))
                 for r in keyed_rounds if (v, large, r) in by_round and (v, small, r) in by_round]
        pairs = [p for p in pairs if p[0] == p[0] and p[1] == p[1]]
        if not pairs:
            continue
        steady_list = " ".join(f"{p[0]:.2f}" for p in pairs)
        wall_list = " ".join(f"{p[1]:.2f}" for p in pairs)
        print(f"| {v:<22} | {steady_list:<32} | {statistics.median(p[0] for p in pairs):6.2f} | {wall_list:<32} "
              f"| {statistics.median(p[1] for p in pairs):6.2f} |")
    print()
print("Runs (variant, records, round, job seconds, seconds from submit, TaskManager CPU s, broker CPU s, CPU s of the")
print("TaskManager's JIT compiler threads):")
for line in open(path):
    print("  " + line.rstrip("\n").replace("\t", "  "))
