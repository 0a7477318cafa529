package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.operators.dedup.keys.ShardKeySelector;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ImpressionSerializer;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.plan.DedupPlan;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.apache.flink.runtime.state.storage.FileSystemCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.FileUtils;
import org.openjdk.jol.info.GraphLayout;

/**
 * Operator throughput on one core, through Flink's keyed operator harness (one thread: the harness
 * calls the operator directly), for four variants side by side: our Bloom operator and the exact
 * dedup idiom ({@link ExactDedupFunction}), each on the HashMap and the RocksDB backend. RocksDB runs
 * with a small, fixed block cache (4 MiB by default), so that its state is several times the cache,
 * as in production.
 *
 * <p>Reports, per variant, the median events/s over the runs (after a warm-up tenth of each run),
 * the savepoint bytes per unique impression (a canonical savepoint: the live state, serialized the same
 * way for either backend), and for HashMap the heap bytes per unique impression (JOL over the state tables).
 *
 * <p>Usage: {@code java -Xmx6g -cp bench/target/benchmarks.jar
 * io.impressiondedup.bench.operator.OperatorThroughputBenchmark [events] [runs] [blockCacheMiB] [pageBytes]
 * [variant,...]}; variants: bloom-heap, bloom-rocksdb, exact-heap, exact-rocksdb (default: all), and for the
 * page-group cache side by side bloom-rocksdb-nocache (RocksDB without it) and bloom-heap-cache (the heap with the
 * RocksDB default), and fingerprints-rocksdb (the fingerprint format, cached as bloom-rocksdb is). bloom-rocksdb runs
 * with the cache the job gives RocksDB ({@code --page-cache-bytes}' default, 64 MiB), or {@code
 * -Dbench.page-cache-bytes=N} bytes (for the curve of live state against cache size); {@code -Dbench.flush-every=N} flushes the caches (the operator's pre-barrier step) every N events, as checkpoints would.
 */
public final class OperatorThroughputBenchmark {

    static final Duration RETENTION = Duration.ofDays(2);

    /**
     * {@code -Dbench.rocksdb.bloom=true} turns on RocksDB's own per-SST Bloom filters: they help the
     * exact variant (point lookups of absent keys) and not ours (our page groups exist once created).
     */
    static final String ROCKSDB_BLOOM_PROPERTY = "bench.rocksdb.bloom";
    /** Bytes of page-group cache for bloom-rocksdb; default: the job's default on RocksDB. */
    static final String PAGE_CACHE_PROPERTY = "bench.page-cache-bytes";
    /** The job's default page cache on Flink's default TaskManager (384 MiB of task heap, 4 slots): 64 MiB ({@code PageCacheBudget}). */
    static final long DEFAULT_TASK_MANAGER_CACHE_BYTES = 64L << 20;
    /** Events between two pre-barrier flushes of the operator's caches; 0 (default): only at the end. */
    static final String FLUSH_EVERY_PROPERTY = "bench.flush-every";

    public static void main(String[] args) throws Exception {
        ScratchTmpDir.run(() -> measure(args));
    }

    private static void measure(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 6_000_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int blockCacheMiB = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        int pageBytes = args.length > 3 ? Integer.parseInt(args[3]) : DedupPlan.DEFAULT_PAGE_BYTES;
        String only = args.length > 4 ? args[4] : "";

        OperatorWorkload workload = new OperatorWorkload(events, 42);
        long perDay = workload.uniqueImpressions / 2;
        System.out.printf(Locale.ROOT, "%,d events over 2 days, %,d unique impressions (%,d per day); %d runs; RocksDB block cache %d MiB;"
                + " Bloom pages of %d B%n", events, workload.uniqueImpressions, perDay, runs, blockCacheMiB, pageBytes);
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(perDay).fpp(0.001).shards(128).pageBytes(pageBytes).build();
        DedupSettings settings = DedupSettings.builder().plan(plan).build();
        long cacheBytes = Long.getLong(PAGE_CACHE_PROPERTY, DEFAULT_TASK_MANAGER_CACHE_BYTES);
        DedupSettings cached = DedupSettings.builder().plan(plan).pageCacheBytes(cacheBytes).build();
        DedupSettings heapCached = DedupSettings.builder().plan(plan).pageCacheBytes(DEFAULT_TASK_MANAGER_CACHE_BYTES).build();
        DedupPlan fingerprintPlan = DedupPlan.builder().capacityPerBucket(perDay).fpp(0.001).shards(128).pageBytes(pageBytes)
                .stateFormat(StateFormat.FINGERPRINTS).build();
        DedupSettings fingerprintsCached = DedupSettings.builder().plan(fingerprintPlan).pageCacheBytes(cacheBytes).build();
        System.out.printf(Locale.ROOT, "Page-group cache of bloom-rocksdb: %,d B (%,d groups of %,d B planned); flush every %,d events%n",
                cacheBytes, cacheBytes / DedupSettings.pageCacheBytesPerGroup(plan), DedupSettings.pageCacheBytesPerGroup(plan),
                Long.getLong(FLUSH_EVERY_PROPERTY, 0));

        List<Variant> variants = List.of(
                new Variant("bloom-heap", () -> new DedupOperator(settings), new ShardKeySelector(128, 128), Types.INT, false, workload::digested),
                new Variant("bloom-rocksdb", () -> new DedupOperator(cached), new ShardKeySelector(128, 128), Types.INT, true, workload::digested),
                new Variant("bloom-rocksdb-nocache", () -> new DedupOperator(settings), new ShardKeySelector(128, 128), Types.INT, true,
                        workload::digested),
                new Variant("bloom-heap-cache", () -> new DedupOperator(heapCached), new ShardKeySelector(128, 128), Types.INT, false,
                        workload::digested),
                new Variant("fingerprints-rocksdb", () -> new DedupOperator(fingerprintsCached), new ShardKeySelector(128, 128), Types.INT,
                        true, workload::digested),
                new Variant("exact-heap", () -> new KeyedProcessOperator<>(new ExactDedupFunction(RETENTION)), ExactDedupFunction.keySelector(),
                        Types.STRING, false, workload::plain),
                new Variant("exact-rocksdb", () -> new KeyedProcessOperator<>(new ExactDedupFunction(RETENTION)), ExactDedupFunction.keySelector(),
                        Types.STRING, true, workload::plain));

        List<String> rows = new ArrayList<>();
        rows.add(String.format(Locale.ROOT, "%-14s %14s %14s %14s %18s %18s", "variant", "median ev/s", "min ev/s", "max ev/s",
                "savepoint B/key", "heap B/key"));
        for (Variant variant : variants) {
            if (!only.isEmpty() && !Arrays.asList(only.split(",")).contains(variant.name)) {
                continue;
            }
            double[] rates = new double[runs];
            Result last = null;
            for (int run = 0; run < runs; run++) {
                last = variant.run(workload, blockCacheMiB);
                rates[run] = last.eventsPerSecond;
                System.out.printf(Locale.ROOT, "  %s run %d: %,.0f events/s%n", variant.name, run + 1, last.eventsPerSecond);
            }
            Arrays.sort(rates);
            rows.add(String.format(Locale.ROOT, "%-14s %,14.0f %,14.0f %,14.0f %18.2f %18s", variant.name, rates[runs / 2], rates[0],
                    rates[runs - 1], (double) last.checkpointBytes / workload.uniqueImpressions,
                    last.heapBytes < 0 ? "-" : String.format(Locale.ROOT, "%.2f", (double) last.heapBytes / workload.uniqueImpressions)));
        }
        System.out.println();
        rows.forEach(System.out::println);
    }

    interface OperatorFactory {
        OneInputStreamOperator<Impression, Impression> create();
    }

    static final class Result {
        double eventsPerSecond;
        long checkpointBytes;
        long heapBytes = -1;
    }

    static final class Variant {
        final String name;
        final OperatorFactory operator;
        final KeySelector<Impression, ?> keySelector;
        final TypeInformation<?> keyType;
        final boolean rocksdb;
        final IntFunction<Impression> impressions;

        Variant(String name, OperatorFactory operator, KeySelector<Impression, ?> keySelector,
                TypeInformation<?> keyType, boolean rocksdb, IntFunction<Impression> impressions) {
            this.name = name;
            this.operator = operator;
            this.keySelector = keySelector;
            this.keyType = keyType;
            this.rocksdb = rocksdb;
            this.impressions = impressions;
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        Result run(OperatorWorkload workload, int blockCacheMiB) throws Exception {
            KeyedOneInputStreamOperatorTestHarness<Object, Impression, Impression> harness = new KeyedOneInputStreamOperatorTestHarness<>(
                    operator.create(), (KeySelector) keySelector, (TypeInformation) keyType, 128, 1, 0);
            harness.setStateBackend(backend(blockCacheMiB)); // before setup(), which captures the backend
            // The harness copies every output record with the output serializer; without this it would be Kryo.
            harness.setup(ImpressionSerializer.INSTANCE);
            Path checkpoints = Files.createTempDirectory("operator-benchmark-");
            harness.setCheckpointStorage(new FileSystemCheckpointStorage(checkpoints.toUri()));
            harness.open();
            String backendName = harness.getOperator().getKeyedStateBackend().getClass().getSimpleName();
            if (rocksdb != backendName.contains("RocksDB")) {
                throw new IllegalStateException(name + " runs on " + backendName);
            }
            Result result = new Result();
            try {
                int n = workload.size();
                int warmup = n / 10;
                long start = 0;
                long flushEvery = Long.getLong(FLUSH_EVERY_PROPERTY, 0);
                for (int i = 0; i < n; i++) {
                    if (flushEvery > 0 && i > 0 && i % flushEvery == 0) {
                        harness.prepareSnapshotPreBarrier(i / flushEvery);
                    }
                    if (i == warmup) {
                        start = System.nanoTime();
                    }
                    Impression impression = impressions.apply(i);
                    harness.processElement(new StreamRecord<>(impression, impression.eventTime()));
                    if ((i & 0x3FFF) == 0) {
                        harness.getOutput().clear();
                        harness.processWatermark(new Watermark(impression.eventTime() - Duration.ofMinutes(5).toMillis()));
                    }
                }
                result.eventsPerSecond = (n - warmup) / ((System.nanoTime() - start) / 1e9);
                // The source's last watermark: buckets expired by then are gone from the savepoint below.
                harness.processWatermark(new Watermark(workload.eventTimes[n - 1] - Duration.ofMinutes(5).toMillis()));
                harness.getOutput().clear();
                if (!rocksdb) {
                    result.heapBytes = heapBytes(harness);
                }
                harness.prepareSnapshotPreBarrier(1);
                // A canonical savepoint holds exactly the live state, in one format for every backend (an
                // incremental checkpoint would also count versions RocksDB's compaction has yet to drop).
                OperatorSubtaskState snapshot = harness.snapshotWithLocalState(1, 1,
                                SavepointType.savepoint(
                                        SavepointFormatType.CANONICAL))
                        .getJobManagerOwnedState();
                result.checkpointBytes = snapshot.getStateSize();
            } finally {
                harness.close();
                FileUtils.deleteDirectory(checkpoints.toFile());
            }
            return result;
        }

        StateBackend backend(int blockCacheMiB) {
            if (!rocksdb) {
                return new HashMapStateBackend();
            }
            Configuration conf = new Configuration();
            conf.set(RocksDBOptions.USE_MANAGED_MEMORY, false);
            conf.set(RocksDBConfigurableOptions.BLOCK_CACHE_SIZE, MemorySize.ofMebiBytes(blockCacheMiB));
            if (Boolean.getBoolean(ROCKSDB_BLOOM_PROPERTY)) {
                conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
            }
            return new EmbeddedRocksDBStateBackend(true).configure(conf, OperatorThroughputBenchmark.class.getClassLoader());
        }

        /** Heap of every state table of the HashMap backend (JOL), shared objects counted once. */
        static long heapBytes(KeyedOneInputStreamOperatorTestHarness<?, ?, ?> harness) throws Exception {
            HeapKeyedStateBackend<?> backend = (HeapKeyedStateBackend<?>) harness.getOperator().getKeyedStateBackend();
            Field field = HeapKeyedStateBackend.class.getDeclaredField("registeredKVStates");
            field.setAccessible(true);
            Map<?, ?> tables = (Map<?, ?>) field.get(backend);
            return GraphLayout.parseInstance(tables.values().toArray()).totalSize();
        }
    }
}
