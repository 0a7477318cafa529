package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/** Reads each shard's bucket directory alone, as a {@link ShardEntry}: a few dozen bytes per bucket, never the pages. */
final class DirectoryReader extends KeyedStateReaderFunction<Integer, ShardEntry> {

    private static final long serialVersionUID = 1L;

    private final ShardKeys shardKeys;
    private transient ValueState<BucketFilters> directory;

    DirectoryReader(ShardKeys shardKeys) {
        this.shardKeys = shardKeys;
    }

    @Override
    public void open(OpenContext openContext) {
        directory = getRuntimeContext().getState(DedupStateLayout.directory());
    }

    @Override
    public void readKey(Integer key, Context context, Collector<ShardEntry> out) throws Exception {
        BucketFilters filters = directory.value();
        if (filters != null) {
            out.collect(ShardEntry.directory(shardKeys.shardOf(key), filters));
        }
    }
}
