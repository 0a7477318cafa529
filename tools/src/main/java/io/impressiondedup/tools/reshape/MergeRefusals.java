package io.impressiondedup.tools.reshape;

import io.impressiondedup.operators.dedup.DedupStateLayout;
import io.impressiondedup.operators.dedup.ShardKeys;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.fingerprints.FingerprintShardMerge;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Why each shard of a savepoint cannot be merged into fewer shards ({@link FingerprintShardMerge#refusal}), read
 * from the bucket directories alone, before {@code reshape} writes anything: a refusal raised inside the rewriting
 * job would reach the user as whatever failure Flink reports first.
 */
final class MergeRefusals extends KeyedStateReaderFunction<Integer, String> {

    private static final long serialVersionUID = 1L;

    private final ShardKeys shardKeys;
    private transient ValueState<BucketFilters> directory;

    MergeRefusals(ShardKeys shardKeys) {
        this.shardKeys = shardKeys;
    }

    @Override
    public void open(OpenContext openContext) {
        directory = getRuntimeContext().getState(DedupStateLayout.directory());
    }

    @Override
    public void readKey(Integer key, Context context, Collector<String> out) throws Exception {
        BucketFilters filters = directory.value();
        String refused = filters == null ? null : FingerprintShardMerge.refusal(shardKeys.shardOf(key), filters);
        if (refused != null) {
            out.collect(refused);
        }
    }
}
