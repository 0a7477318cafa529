package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.tools.ToolEnvironment;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;

/**
 * Turns a stream of the dedup operator's future state into the transformation a {@link SavepointWriter}
 * writes under {@link DedupSavepoint#OPERATOR}: each element keyed by the Flink key of its shard
 * ({@link ShardKeys}, for the shard count and max parallelism the job will run with), then written by a
 * {@link DedupStateWriter}.
 */
public final class DedupSavepointWriter {

    private DedupSavepointWriter() {}

    /** The shard of an element, for {@link #transformation}. */
    @FunctionalInterface
    public interface ShardOf<IN> extends java.io.Serializable {
        int shardOf(IN element);
    }

    public static <IN> StateBootstrapTransformation<IN> transformation(
            DataStream<IN> elements, ShardKeys shardKeys, ShardOf<IN> shardOf, DedupStateWriter<IN> writer) {
        KeySelector<IN, Integer> key = element -> shardKeys.keyOf(shardOf.shardOf(element));
        WatchedStateWriter<IN> watched = new WatchedStateWriter<>(writer, ToolEnvironment.runOf(elements.getExecutionEnvironment()));
        return OperatorTransformation.bootstrapWith(elements)
                .keyBy(key, Types.INT)
                .transform((timestamp, savepointPath) -> SimpleOperatorFactory.of(
                        new ShardStateWriterOperator<>(timestamp, savepointPath, watched, shardKeys)));
    }

    /** {@link ShardEntry}s written back as they are, each under its own {@link ShardEntry#shard}. */
    public static StateBootstrapTransformation<ShardEntry> entries(
            DataStream<ShardEntry> entries, ShardKeys shardKeys, Long fingerprintCheck, Long latenessWatermark, String dedupKey) {
        return transformation(entries, shardKeys, entry -> entry.shard,
                new ShardEntryWriter(shardKeys.shards(), fingerprintCheck, latenessWatermark, dedupKey));
    }

    /** {@link ShardEntry}s written back as they are, with every fact {@code facts} holds but the shard count (that of {@code shardKeys}). */
    public static StateBootstrapTransformation<ShardEntry> entries(DataStream<ShardEntry> entries, ShardKeys shardKeys, DedupSavepoint.Facts facts) {
        return entries(entries, shardKeys, facts, false);
    }

    /**
     * {@link #entries(DataStream, ShardKeys, DedupSavepoint.Facts)}; with {@code combinePages}, fingerprint pages written to
     * one key of one shard are put together section by section ({@code ShardReshape} moves sections of different old pages
     * there) instead of refused.
     */
    public static StateBootstrapTransformation<ShardEntry> entries(DataStream<ShardEntry> entries, ShardKeys shardKeys, DedupSavepoint.Facts facts,
            boolean combinePages) {
        ShardEntryWriter writer = new ShardEntryWriter(shardKeys.shards(), facts.fingerprintCheck(), facts.latenessWatermark(), facts.dedupKey());
        if (combinePages) {
            writer.combiningPages();
        }
        writer.withTimeOptions(facts.timeOptions(), facts.lateBefore());
        return transformation(entries, shardKeys, entry -> entry.shard, writer);
    }
}
