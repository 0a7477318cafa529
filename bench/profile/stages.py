#!/usr/bin/env python3
"""CPU per record by stage, for one run on the TaskManager.

    stages.py RECORDING.json CPU_BEFORE.json CPU_AFTER.json RECORDS

RECORDING.json is `jfr print --json --events jdk.ExecutionSample,jdk.NativeMethodSample` of a JFR
recording that covered the run; CPU_*.json are thread_cpu.py snapshots of the TaskManager before
and after it. The CPU each thread used during the run (from /proc, exact) is split over stages in
proportion to that thread's samples: an execution sample (a thread running Java code) is assigned
to the stage of the innermost frame that a rule below recognises; a native-method sample counts
only when it is inside RocksDB (a JNI call that computes; other native samples are threads waiting
in epoll or a socket, not CPU). A thread without samples (GC, JIT compiler, VM) is its own stage,
named after the thread. Prints a table of microseconds of CPU per record by stage, and the leaf
methods of the largest stages.
"""
import collections, json, re, sys

# (stage, pattern on "class.method"), tried on each frame from the innermost outwards; the first frame that
# any rule matches decides the sample's stage. Order matters only between rules that match the same frame.
RULES = [
    ("digest (MD5)", r"^(sun\.security\.provider\.(MD5|DigestBase)|java\.security\.MessageDigest)"),
    ("state: RocksDB", r"^(org\.rocksdb\.|org\.apache\.flink\.state\.rocksdb\.|org\.apache\.flink\.contrib\.streaming\.state\.)"),
    ("state: heap backend", r"^org\.apache\.flink\.runtime\.state\.heap\."),
    ("state: filters and time rules", r"^io\.impressiondedup\.state\."),
    ("envelope (de)serialization", r"^io\.impressiondedup\.operators\.model\..*Serializer\."),
    ("watermarks", r"^(org\.apache\.flink\.api\.common\.eventtime\.|io\.impressiondedup\.job\.io\.eventtime\.|"
                   r"org\.apache\.flink\.streaming\.runtime\.watermarkstatus\.|.*[Ww]atermark)"),
    ("parse", r"^(io\.impressiondedup\.job\.io\.parsing\.|com\.fasterxml\.jackson\.|io\.impressiondedup\.job\.RouteParsedRecords)"),
    ("dedup operator", r"^io\.impressiondedup\.operators\.(dedup|stats)\."),
    ("metrics", r"^(org\.apache\.flink\.metrics\.|org\.apache\.flink\.runtime\.metrics\.)"),
    ("sink: Kafka producer", r"^(org\.apache\.kafka\.clients\.producer\.|org\.apache\.flink\.connector\.kafka\.sink\.|"
                             r"io\.impressiondedup\.job\.io\.kafka\..*Serialization)"),
    ("source: Kafka consumer", r"^(org\.apache\.kafka\.clients\.consumer\.|org\.apache\.flink\.connector\.kafka\.source\.|"
                               r"org\.apache\.flink\.connector\.base\.source\.|io\.impressiondedup\.job\.io\.kafka\.)"),
    ("network (shuffle)", r"^(org\.apache\.flink\.runtime\.io\.network\.|org\.apache\.flink\.shaded\.netty|"
                          r"org\.apache\.flink\.streaming\.runtime\.io\.|org\.apache\.flink\.runtime\.io\.)"),
    ("checkpointing", r"^(org\.apache\.flink\.runtime\.checkpoint\.|org\.apache\.flink\.streaming\.runtime\.tasks\.SubtaskCheckpoint)"),
    ("Kafka client I/O", r"^org\.apache\.kafka\."),
]
COMPILED = [(stage, re.compile(pattern)) for stage, pattern in RULES]
# Envelope frames are split by direction: under a RecordWriter they serialize, under a record deserializer they read.
DESERIALIZING = re.compile(r"^org\.apache\.flink\.runtime\.io\.network\.api\.serialization\.|StreamTaskNetworkInput")


def frame_name(frame):
    method = frame["method"]
    return method["type"]["name"].replace("/", ".") + "." + method["name"]


def stage_of(frames):
    names = [frame_name(f) for f in frames]
    for i, name in enumerate(names):
        for stage, pattern in COMPILED:
            if pattern.search(name):
                if stage == "envelope (de)serialization":
                    inbound = any(DESERIALIZING.search(n) for n in names[i:])
                    return "envelope deserialization" if inbound else "envelope serialization"
                return stage
    return "other"


def thread_group(name):
    """Threads named by what they do: task threads keep their operator chain; helpers are grouped."""
    for pattern, group in [(r"^GC Thread|^G1 ", "GC (thread)"), (r"^C[12] CompilerThre", "JIT compiler (thread)"),
                           (r"kafka-producer-network-thread", "kafka-producer-network-thread"),
                           (r"^Source Data Fetcher|^SourceFetcher", "Kafka source fetcher thread"),
                           (r"^Flink Netty|^Flink-Netty", "Netty (shuffle I/O)")]:
        if re.search(pattern, name):
            return group
    return re.sub(r"\s*\(\d+/\d+\)(#\d+)?$", "", name)  # subtasks of the same chain together


def main():
    recording, before, after, records = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    before, after = json.load(open(before)), json.load(open(after))
    ticks = after["ticks_per_second"]
    cpu = {}  # tid -> seconds during the run
    for tid, (comm, t) in after["threads"].items():
        cpu[tid] = (comm, (t - before["threads"].get(tid, [comm, 0])[1]) / ticks)
    events = json.load(open(recording))["recording"]["events"]
    samples = collections.defaultdict(collections.Counter)  # tid -> stage -> weight
    names, leaves = {}, collections.defaultdict(collections.Counter)
    for event in events:
        values = event["values"]
        thread = values.get("sampledThread") or {}
        tid = str(thread.get("osThreadId"))
        names[tid] = thread.get("javaName") or thread.get("osName") or tid
        frames = (values.get("stackTrace") or {}).get("frames") or []
        if not frames:
            continue
        if event["type"] == "jdk.NativeMethodSample":
            if not any(frame_name(f).startswith("org.rocksdb.") for f in frames):
                continue  # waiting, not computing
            stage = "state: RocksDB"
        else:
            stage = stage_of(frames)
        samples[tid][stage] += 1
        leaves[stage][frame_name(frames[0])] += 1
    by_stage = collections.Counter()
    by_thread = collections.Counter()
    for tid, (comm, seconds) in cpu.items():
        if seconds <= 0:
            continue
        group = thread_group(names.get(tid, comm))
        by_thread[group] += seconds
        counted = sum(samples[tid].values())
        if counted == 0:
            by_stage["not sampled: " + thread_group(comm)] += seconds
            continue
        for stage, n in samples[tid].items():
            by_stage[stage] += seconds * n / counted
    total = sum(by_stage.values())
    print(f"TaskManager CPU during the run: {total:.1f} s for {records} records = {total * 1e6 / records:.2f} us per record")
    print()
    print(f"| {'stage':<40} | {'us/record':>9} | {'share':>6} |")
    print(f"|{'-'*42}|{'-'*11}|{'-'*8}|")
    for stage, seconds in by_stage.most_common():
        print(f"| {stage:<40} | {seconds * 1e6 / records:9.2f} | {100 * seconds / total:5.1f}% |")
    print()
    print(f"| {'thread (group)':<60} | {'us/record':>9} |")
    print(f"|{'-'*62}|{'-'*11}|")
    for group, seconds in by_thread.most_common(12):
        print(f"| {group[:60]:<60} | {seconds * 1e6 / records:9.2f} |")
    print()
    for stage, _ in by_stage.most_common(6):
        if leaves[stage]:
            n = sum(leaves[stage].values())
            print(f"{stage}: leaf methods " + ", ".join(f"{m} {100 * c / n:.0f}%" for m, c in leaves[stage].most_common(6)))


if __name__ == "__main__":
    main()
