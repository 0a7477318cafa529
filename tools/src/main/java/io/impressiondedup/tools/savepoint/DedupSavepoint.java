package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.tools.ToolEnvironment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.api.runtime.SavepointLoader;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * A savepoint (or retained checkpoint) of the dedup job, as the state tools read it: the dedup
 * operator's facts (shard count, max parallelism, fingerprint check value, lateness watermark) and its
 * keyed state as {@link ShardEntry}s. The layout is {@link DedupStateLayout}'s; the operator is found by
 * its uid, {@value DedupOperator#UID}.
 */
public final class DedupSavepoint {

    /** The dedup operator in every savepoint of the job. */
    public static final OperatorIdentifier OPERATOR = OperatorIdentifier.forUid(DedupOperator.UID);

    private final String path;
    private final Facts facts;

    private DedupSavepoint(String path, Facts facts) {
        this.path = path;
        this.facts = facts;
    }

    /**
     * What a savepoint says about the dedup state it holds.
     *
     * @param fingerprintCheck the secret's check value the state was written with; {@code null} in state v1 (counts
     *     as written without a secret)
     * @param latenessWatermark the highest lateness watermark of the subtasks, or {@code null} if none was saved
     * @param dedupKey the dedup key the state was written under ({@code DedupSettings#dedupKey()}), or {@code null} if
     *     none was recorded (state v1 and v2, or written by {@code bootstrap --from-file})
     * @param timeOptions the time options the state was written under ({@code TimeBuckets#description()}), or {@code null}
     *     if none were recorded (state v1-v3, or written by the state tools)
     * @param lateBefore the event time before which records are late whatever the watermark ({@code TimeBuckets} rule 7), or {@code null}
     */
    public record Facts(int shards, int maxParallelism, Long fingerprintCheck, Long latenessWatermark, String dedupKey,
            String timeOptions, Long lateBefore) {

        /** Facts of state that records no time options. */
        public Facts(int shards, int maxParallelism, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
            this(shards, maxParallelism, fingerprintCheck, latenessWatermark, dedupKey, null, null);
        }

        public ShardKeys shardKeys() {
            return new ShardKeys(shards, maxParallelism);
        }
    }

    /** Opens {@code path}: reads its metadata and the operator state of the dedup operator (a small local job). */
    public static DedupSavepoint open(String path, StateBackend backend) throws Exception {
        int maxParallelism = maxParallelismOf(path);
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointReader reader = SavepointReader.read(env, path, backend);
        // The union lists in one local job (each job costs seconds to start), each value as text tagged with its state.
        DataStream<Tuple2<String, String>> all = tagged(reader.readUnionState(OPERATOR, DedupStateLayout.SHARD_COUNT, Types.INT),
                        DedupStateLayout.SHARD_COUNT)
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.FINGERPRINT_CHECK, Types.LONG),
                        DedupStateLayout.FINGERPRINT_CHECK))
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.LATENESS_WATERMARK, Types.LONG),
                        DedupStateLayout.LATENESS_WATERMARK))
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.DEDUP_KEY, Types.STRING), DedupStateLayout.DEDUP_KEY))
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.TIME_OPTIONS, Types.STRING), DedupStateLayout.TIME_OPTIONS))
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.LATE_BEFORE, Types.LONG), DedupStateLayout.LATE_BEFORE))
                .union(tagged(reader.readUnionState(OPERATOR, DedupStateLayout.JOURNALED_SHARDS, Types.INT),
                        DedupStateLayout.JOURNALED_SHARDS));
        List<Long> shardCounts = new ArrayList<>();
        List<Long> checks = new ArrayList<>();
        List<Long> watermarks = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        List<String> timeOptions = new ArrayList<>();
        List<Long> lateBefore = new ArrayList<>();
        long journaledShards = 0;
        for (Tuple2<String, String> value : collect(all)) {
            switch (value.f0) {
                case DedupStateLayout.SHARD_COUNT -> shardCounts.add(Long.parseLong(value.f1));
                case DedupStateLayout.FINGERPRINT_CHECK -> checks.add(Long.parseLong(value.f1));
                case DedupStateLayout.DEDUP_KEY -> keys.add(value.f1);
                case DedupStateLayout.TIME_OPTIONS -> timeOptions.add(value.f1);
                case DedupStateLayout.LATE_BEFORE -> lateBefore.add(Long.parseLong(value.f1));
                case DedupStateLayout.JOURNALED_SHARDS -> journaledShards += Long.parseLong(value.f1);
                default -> watermarks.add(Long.parseLong(value.f1));
            }
        }
        if (shardCounts.isEmpty()) {
            throw new IllegalArgumentException("The savepoint " + path + " holds no shard count for operator '" + DedupOperator.UID
                    + "': is it a savepoint of the dedup job?");
        }
        if (journaledShards > 0) {
            throw new IllegalArgumentException(path + " is a checkpoint whose last page changes in " + journaledShards + " shards are"
                    + " held in the dedup operator's page journal, which only the job redoes: the tools read savepoints, whose pages"
                    + " are complete. Take one of the running job (flink savepoint <job id>, or flink stop --savepointPath <dir>"
                    + " <job id>) and give its path.");
        }
        long shards = shardCounts.get(0);
        for (long count : shardCounts) {
            if (count != shards) {
                throw new IllegalStateException("The savepoint " + path + " holds shard counts " + shardCounts + ": it is corrupt");
            }
        }
        Long watermark = watermarks.stream().max(Long::compare).orElse(null);
        return new DedupSavepoint(path, new Facts((int) shards, maxParallelism, checks.isEmpty() ? null : checks.get(0), watermark,
                keys.isEmpty() ? null : keys.get(0), timeOptions.isEmpty() ? null : timeOptions.get(0),
                lateBefore.stream().max(Long::compare).orElse(null)));
    }

    private static <T> DataStream<Tuple2<String, String>> tagged(DataStream<T> values, String state) {
        return values.map(value -> Tuple2.of(state, String.valueOf(value)), Types.TUPLE(Types.STRING, Types.STRING)).name(state);
    }

    public String path() {
        return path;
    }

    public Facts facts() {
        return facts;
    }

    /** Every shard's keyed state, entry by entry, in {@code env}. */
    public DataStream<ShardEntry> shardEntries(StreamExecutionEnvironment env, StateBackend backend) throws IOException {
        return keyedState(env, backend, new ShardEntryReader(facts.shardKeys()), Types.POJO(ShardEntry.class));
    }

    /** What {@code reader} reads of every shard's keyed state, in {@code env}. */
    public <T> DataStream<T> keyedState(StreamExecutionEnvironment env, StateBackend backend, KeyedStateReaderFunction<Integer, T> reader,
            TypeInformation<T> type) throws IOException {
        return keyedState(path, env, backend, reader, type);
    }

    /**
     * What {@code reader} reads of every shard's keyed state in the savepoint at {@code path}, in {@code env}: the one way
     * the tools read it, so that what a reader throws is what the tool reports ({@link WatchedStateReader}).
     */
    public static <T> DataStream<T> keyedState(String path, StreamExecutionEnvironment env, StateBackend backend,
            KeyedStateReaderFunction<Integer, T> reader, TypeInformation<T> type) throws IOException {
        return SavepointReader.read(env, path, backend).readKeyedState(OPERATOR, new WatchedStateReader<>(reader, ToolEnvironment.runOf(env)),
                Types.INT, type);
    }

    /**
     * Every shard's bucket directory, by shard, read in a local job of {@code parallelism} and collected: the metadata
     * of the state, a few dozen bytes per shard and bucket, to check a rewrite entirely before writing anything.
     */
    public Map<Integer, BucketFilters> directories(StateBackend backend, int parallelism) throws Exception {
        Map<Integer, BucketFilters> directories = new TreeMap<>();
        DataStream<ShardEntry> entries = keyedState(ToolEnvironment.create(parallelism), backend, new DirectoryReader(facts.shardKeys()),
                Types.POJO(ShardEntry.class));
        ToolEnvironment.collect(entries, "dedup-tools: the savepoint's bucket directories",
                entry -> directories.put(entry.shard, entry.directory()));
        return directories;
    }

    private static int maxParallelismOf(String path) throws IOException {
        CheckpointMetadata metadata = SavepointLoader.loadSavepointMetadata(path);
        OperatorID id = OPERATOR.getOperatorId();
        for (OperatorState state : metadata.getOperatorStates()) {
            if (state.getOperatorID().equals(id)) {
                return state.getMaxParallelism();
            }
        }
        throw new IllegalArgumentException("The savepoint " + path + " has no state of operator '" + DedupOperator.UID
                + "': is it a savepoint of the dedup job?");
    }

    private static <T> List<T> collect(DataStream<T> stream) throws Exception {
        List<T> all = new ArrayList<>();
        ToolEnvironment.collect(stream, "dedup-tools: the savepoint's facts", all::add);
        return all;
    }
}
