#!/usr/bin/env python3
"""One table of CPU per record by stage, a column per variant, from the stages.py outputs in DIR.

    side_by_side.py DIR VARIANT...

Rows are stages (threads without samples, such as GC and the JIT compiler, by their thread name);
each cell is microseconds of TaskManager CPU per record; the last row is the total."""
import re, sys

directory, variants = sys.argv[1], sys.argv[2:]
tables = {}
for v in variants:
    rows = {}
    for line in open(f"{directory}/{v}.txt"):
        m = re.match(r"\|\s*(.+?)\s*\|\s*([0-9.]+)\s*\|\s*[0-9.]+%\s*\|$", line)
        if m:
            stage = re.sub(r"^not sampled: ", "", m.group(1))
            stage = {"JIT compiler (thread)": "JIT compiler", "GC (thread)": "GC"}.get(stage, stage)
            rows[stage] = rows.get(stage, 0.0) + float(m.group(2))
    tables[v] = rows
order = sorted({s for rows in tables.values() for s in rows}, key=lambda s: -max(t.get(s, 0) for t in tables.values()))
shown = [s for s in order if max(t.get(s, 0) for t in tables.values()) >= 0.05]
print("| stage (us of TaskManager CPU per record) | " + " | ".join(variants) + " |")
print("|---|" + "---:|" * len(variants))
for s in shown:
    print(f"| {s} | " + " | ".join(f"{tables[v].get(s, 0):.2f}" for v in variants) + " |")
print("| other threads and stages under 0.05 | " + " | ".join(
    f"{sum(x for s, x in tables[v].items() if s not in shown):.2f}" for v in variants) + " |")
print("| **total** | " + " | ".join(f"**{sum(tables[v].values()):.2f}**" for v in variants) + " |")
