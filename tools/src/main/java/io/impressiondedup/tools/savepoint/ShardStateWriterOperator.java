package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import org.apache.flink.core.fs.Path;
import org.apache.flink.state.api.output.operators.KeyedStateBootstrapOperator;

/**
 * Flink's keyed state bootstrap operator, which also lets its {@link DedupStateWriter} make any shard's key current and
 * tells it when the input has ended, before the savepoint is taken.
 *
 * <p><b>Why.</b> Flink makes an element's key current for the writer and no other. A writer that keeps what it wrote of a
 * shard across that shard's elements (the {@code bootstrap} writer keeps a shard's pages in its cache across the shard's
 * batches: in batch execution a keyed input comes sorted by key, so a shard's batches come one after the other) must
 * write them under that shard's key when the next shard's element comes, and the last shard's at the end of the input.
 * {@link #endInput} is where Flink's operator takes the savepoint: the writer ends first.
 *
 * <p>Flink's operator is marked {@code @Internal}; the {@code SavepointWriterOperatorFactory} this is given through is
 * {@code @PublicEvolving}. A change of the State Processor API's version checks it: the bootstrap ITs compare the
 * written state with the operator's own.
 */
final class ShardStateWriterOperator<IN> extends KeyedStateBootstrapOperator<Integer, IN> {

    private static final long serialVersionUID = 1L;

    /** The checkpoint id of the savepoint, as {@code OperatorTransformation.bootstrapWith(stream)} gives Flink's operator. */
    static final long CHECKPOINT_ID = 0L;

    private final ShardKeys shardKeys;

    ShardStateWriterOperator(long timestamp, Path savepointPath, WatchedStateWriter<IN> writer, ShardKeys shardKeys) {
        super(CHECKPOINT_ID, timestamp, savepointPath, writer);
        this.shardKeys = shardKeys;
    }

    @Override
    public void open() throws Exception {
        writer().selectShardKeysWith(shard -> setCurrentKey(shardKeys.keyOf(shard)));
        super.open();
    }

    @Override
    public void endInput() throws Exception {
        writer().endOfInput();
        super.endInput();
    }

    @SuppressWarnings("unchecked")
    private WatchedStateWriter<IN> writer() {
        return (WatchedStateWriter<IN>) getUserFunction();
    }
}
