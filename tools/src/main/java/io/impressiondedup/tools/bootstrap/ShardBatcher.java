package io.impressiondedup.tools.bootstrap;

import java.util.function.Consumer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Groups the history's impressions into batches of one shard ({@link HistoryBatch}), so that the state writer reads and
 * writes a shard's directory once per batch instead of once per impression (its pages, once a shard: {@link
 * HistoryStateWriter}). A batch leaves when it is full, and every other one at the end of the input. An impression's
 * batch keeps the order the impressions came in; which copy of an impression a writer meets first was never an order
 * the history kept (see {@link HistoryStateWriter}).
 *
 * <p>Memory: one open batch per shard of {@value #BATCH_SIZE} impressions of 40 B, 320 KiB, so 40 MiB per
 * subtask with the default 128 shards. With a shard's pages on plan about 700 groups per bucket (12M
 * impressions a day over 128 shards), a full batch meets each group about 12 times.
 */
final class ShardBatcher extends AbstractStreamOperator<HistoryBatch>
        implements OneInputStreamOperator<HistoryImpression, HistoryBatch>, BoundedOneInput {

    private static final long serialVersionUID = 1L;

    /** Impressions per batch. */
    static final int BATCH_SIZE = 8192;

    private final int shards;
    private transient Batches batches;

    ShardBatcher(int shards) {
        this.shards = shards;
    }

    @Override
    public void open() throws Exception {
        super.open();
        batches = new Batches(shards, BATCH_SIZE);
    }

    @Override
    public void processElement(StreamRecord<HistoryImpression> element) {
        HistoryBatch full = batches.add(element.getValue());
        if (full != null) {
            output.collect(new StreamRecord<>(full));
        }
    }

    @Override
    public void endInput() {
        batches.drain(batch -> output.collect(new StreamRecord<>(batch)));
    }

    /** The open batch of each shard. */
    static final class Batches {
        private final HistoryBatch[] open;
        private final int batchSize;

        Batches(int shards, int batchSize) {
            this.open = new HistoryBatch[shards];
            this.batchSize = batchSize;
        }

        /** Adds {@code impression} to its shard's batch; returns that batch if it is full now, else {@code null}. */
        HistoryBatch add(HistoryImpression impression) {
            HistoryBatch batch = open[impression.shard];
            if (batch == null) {
                batch = new HistoryBatch(impression.shard, batchSize);
                open[impression.shard] = batch;
            }
            batch.add(impression);
            if (!batch.isFull()) {
                return null;
            }
            open[impression.shard] = null;
            return batch;
        }

        /** Hands every batch not yet full to {@code sink} ({@link HistoryBatch#trimmed}), in shard order, and forgets them. */
        void drain(Consumer<HistoryBatch> sink) {
            for (int shard = 0; shard < open.length; shard++) {
                if (open[shard] != null) {
                    sink.accept(open[shard].trimmed());
                    open[shard] = null;
                }
            }
        }
    }
}
