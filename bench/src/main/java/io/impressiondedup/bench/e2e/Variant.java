package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.DedupStage;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.testdata.generate.ValueFormat;

/** One way of deduplicating, on one state backend: a row of the end-to-end comparison. */
enum Variant {
    /** Not a dedup stage: the whole job is {@link BytePassThrough} (no parsing, no keyBy). */
    BYTE_PASS_THROUGH("byte pass-through (no parsing, no keyBy)", "hashmap", null),
    PASS_THROUGH("pass-through (no dedup)", "hashmap", AlternativeDedupStages.passThrough()),
    PASS_THROUGH_KEYED("pass-through, keyed (no dedup)", "hashmap", AlternativeDedupStages.keyedPassThrough()),
    BLOOM_ROCKSDB("this job, RocksDB", "rocksdb", DedupJob.dedupStage()),
    BLOOM_HEAP("this job, heap", "hashmap", DedupJob.dedupStage()),
    /** This job with --stats-topic: the reconciliation rows' cost (outcome side output, chained pre-aggregators, combiner, sink). */
    BLOOM_ROCKSDB_STATS("this job, RocksDB, --stats-topic", "rocksdb", DedupJob.dedupStage(), true),
    BLOOM_HEAP_STATS("this job, heap, --stats-topic", "hashmap", DedupJob.dedupStage(), true),
    EXACT_ROCKSDB("exact keyed state, RocksDB", "rocksdb", AlternativeDedupStages.exactKeyedState(TimeBuckets.DEFAULT_RETENTION)),
    EXACT_HEAP("exact keyed state, heap", "hashmap", AlternativeDedupStages.exactKeyedState(TimeBuckets.DEFAULT_RETENTION)),
    SQL_ROCKSDB("Flink SQL ROW_NUMBER, RocksDB", "rocksdb", AlternativeDedupStages.flinkSql(TimeBuckets.DEFAULT_RETENTION)),
    /** The baseline of the Avro variants: the same impressions in Avro (no prefix), bytes moved as they are. */
    BYTE_PASS_THROUGH_AVRO("byte pass-through, Avro input", "hashmap", null, false, ValueFormat.AVRO),
    /** This job reading the same impressions in Avro ({@code --input-format avro}, no wire prefix). */
    BLOOM_HEAP_AVRO("this job, heap, Avro input", "hashmap", DedupJob.dedupStage(), false, ValueFormat.AVRO),
    BLOOM_ROCKSDB_AVRO("this job, RocksDB, Avro input", "rocksdb", DedupJob.dedupStage(), false, ValueFormat.AVRO);

    final String label;
    final String stateBackend;
    final DedupStage stage;
    /** Whether the run writes reconciliation rows to a stats topic of its own. */
    final boolean stats;
    /** How the input's values are encoded: each format has its own input topic of the same impressions. */
    final ValueFormat format;

    Variant(String label, String stateBackend, DedupStage stage) {
        this(label, stateBackend, stage, false);
    }

    Variant(String label, String stateBackend, DedupStage stage, boolean stats) {
        this(label, stateBackend, stage, stats, ValueFormat.JSON);
    }

    Variant(String label, String stateBackend, DedupStage stage, boolean stats, ValueFormat format) {
        this.label = label;
        this.stateBackend = stateBackend;
        this.stage = stage == null ? null : EndOfInputWatermarkHold.before(stage);
        this.stats = stats;
        this.format = format;
    }

    /** Whether the whole job is {@link BytePassThrough}: a baseline, not a dedup stage. */
    boolean bytePassThrough() {
        return stage == null;
    }

    /** The byte pass-through over the same input topic as this variant: its baseline. */
    Variant baseline() {
        return format == ValueFormat.AVRO ? BYTE_PASS_THROUGH_AVRO : BYTE_PASS_THROUGH;
    }

    String id() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    static java.util.List<String> ids() {
        return java.util.Arrays.stream(values()).map(Variant::id).toList();
    }

    static Variant byId(String id) {
        for (Variant v : values()) {
            if (v.id().equals(id.trim())) {
                return v;
            }
        }
        throw new IllegalArgumentException("Unknown variant '" + id + "'; known: " + ids());
    }
}
