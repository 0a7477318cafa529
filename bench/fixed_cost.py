#!/usr/bin/env python3
"""Fixed cost per job, read from a JobManager log of bench/run-cluster-headline.sh (jobs run one at a time).

For each job: start = from the JobManager receiving the job to its last task RUNNING (scheduling, deployment,
state and connector start-up); end = from its last source task FINISHED (the input read) to the job FINISHED
(the last checkpoint and the commit); both in seconds. With runs.tsv: main = from the jar upload to the job
received (main() with the job's broker checks). Medians per variant and size over the rounds.

    python3 bench/fixed_cost.py JOBMANAGER_LOG [RUNS_TSV]
"""
import re
import statistics
import sys
from datetime import datetime

STAMP = re.compile(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ')
RECEIVED = re.compile(r"Received job submission '([^']*)' \(([0-9a-f]{32})\)")
JOB_STATE = re.compile(r'Job (.*) \(([0-9a-f]{32})\) switched from state (\w+) to (\w+)')
TASK = re.compile(r' switched from (\w+) to (\w+)\.?$')


def seconds(stamp):
    return datetime.strptime(stamp, '%Y-%m-%d %H:%M:%S,%f').timestamp()


def jobs(log):
    current = None
    for line in log:
        m = STAMP.match(line)
        if not m:
            continue
        t = seconds(m.group(1))
        r = RECEIVED.search(line)
        if r:
            current = {'name': r.group(1), 'id': r.group(2), 'received': t, 'running': None, 'source_done': None}
            continue
        if current is None:
            continue
        j = JOB_STATE.search(line)
        if j and j.group(2) == current['id']:
            if j.group(4) in ('FINISHED', 'FAILED', 'CANCELED'):
                current['ended'] = t
                current['state'] = j.group(4)
                yield current
                current = None
            continue
        s = TASK.search(line)
        if s and 'ExecutionGraph' in line:
            if s.group(2) == 'RUNNING' and s.group(1) == 'INITIALIZING':
                current['running'] = t
            if s.group(1) == 'RUNNING' and s.group(2) == 'FINISHED' and 'Source' in line:
                current['source_done'] = t if current['source_done'] is None else max(current['source_done'], t)


def variant_and_size(name):
    # "<Job title>: input-<size> -> out-<variant>-<size>-r<round>"
    m = re.search(r'input-(\d+) -> out-(.+)-(\d+)-r(\w+)$', name)
    return (m.group(2), int(m.group(1)), m.group(4)) if m else (name, 0, '')


def main():
    runs = {}
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            for row in f:
                v, size, rnd, job_s, from_submit = row.split('\t')[:5]
                runs[(v, int(size), rnd)] = float(from_submit) - float(job_s)
    rows = {}
    with open(sys.argv[1], errors='replace') as f:
        for job in jobs(f):
            if job['state'] != 'FINISHED' or job['running'] is None or job['source_done'] is None:
                continue
            v, size, rnd = variant_and_size(job['name'])
            start = job['running'] - job['received']
            end = job['ended'] - job['source_done']
            rows.setdefault((v, size), []).append((start, end, runs.get((v, size, rnd))))
    print('| variant | records | runs | start s (median) | end s (median) | main() s (median) |')
    print('|---|---:|---:|---:|---:|---:|')
    for (v, size), values in sorted(rows.items()):
        mains = [m for _, _, m in values if m is not None]
        print('| %s | %d | %d | %.2f | %.2f | %s |' % (v, size, len(values), statistics.median(s for s, _, _ in values),
                                                 statistics.median(e for _, e, _ in values),
                                                 '%.2f' % statistics.median(mains) if mains else 'n/a'))


if __name__ == '__main__':
    main()
