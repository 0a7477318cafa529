package io.impressiondedup.tools.bootstrap;

import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Reads the impressions inserted into each shard of a savepoint from its bucket directory (the insert count of every
 * layer of every bucket), without its pages. Bootstrap counts what it inserted this way: a {@code KeyedStateBootstrapFunction}
 * runs in the State Processor API's own task environment, whose accumulators never reach the job's result.
 */
final class DirectoryInsertCount extends KeyedStateReaderFunction<Integer, Long> {

    private static final long serialVersionUID = 1L;

    private transient ValueState<BucketFilters> directory;

    @Override
    public void open(OpenContext openContext) {
        directory = getRuntimeContext().getState(DedupStateLayout.directory());
    }

    @Override
    public void readKey(Integer key, Context context, Collector<Long> out) throws Exception {
        BucketFilters shard = directory.value();
        long inserted = 0;
        for (int i = 0; shard != null && i < shard.size(); i++) {
            inserted += shard.filterAt(i).inserted();
        }
        out.collect(inserted);
    }
}
