#!/usr/bin/env python3
"""The CPU time of every thread of a process, as JSON: {"threads": {tid: [comm, clock ticks]}} (user +
system, from /proc/<pid>/task/<tid>/stat).

    thread_cpu.py PID                  one snapshot, to standard output
    thread_cpu.py --follow PID FILE    snapshots every 0.2 s until SIGTERM, then FILE holds each thread's
                                       last reading, also of threads that ended meanwhile (a job's task
                                       threads end with it; at most 0.2 s of their CPU is missed)

A snapshot before a run and a followed one over it give each thread's CPU during the run."""
import json, os, signal, sys, time


def snapshot(pid, threads):
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended while we read
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        threads[tid] = [comm, int(fields[11]) + int(fields[12])]  # utime, stime: fields 14 and 15 of stat
    return threads


def dump(threads, out):
    json.dump({"ticks_per_second": os.sysconf("SC_CLK_TCK"), "threads": threads}, out)


if sys.argv[1] == "--follow":
    pid, path = sys.argv[2], sys.argv[3]
    threads, stop = {}, []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
    while not stop:
        snapshot(pid, threads)
        time.sleep(0.2)
    snapshot(pid, threads)
    with open(path, "w") as out:
        dump(threads, out)
else:
    dump(snapshot(sys.argv[1], {}), sys.stdout)
