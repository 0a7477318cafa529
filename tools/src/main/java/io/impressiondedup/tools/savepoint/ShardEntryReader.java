package io.impressiondedup.tools.savepoint;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/** Reads each shard's keyed dedup state as {@link ShardEntry}s: its directory, then its page groups and fingerprint pages. */
final class ShardEntryReader extends KeyedStateReaderFunction<Integer, ShardEntry> {

    private static final long serialVersionUID = 1L;

    private final ShardKeys shardKeys;
    private transient ValueState<BucketFilters> directory;
    private transient MapState<Long, PageGroup> pages;
    private transient MapState<Long, FingerprintPage> fingerprintPages;

    ShardEntryReader(ShardKeys shardKeys) {
        this.shardKeys = shardKeys;
    }

    @Override
    public void open(OpenContext openContext) {
        directory = getRuntimeContext().getState(DedupStateLayout.directory());
        pages = getRuntimeContext().getMapState(DedupStateLayout.pages());
        fingerprintPages = getRuntimeContext().getMapState(DedupStateLayout.fingerprintPages());
    }

    @Override
    public void readKey(Integer key, Context context, Collector<ShardEntry> out) throws Exception {
        int shard = shardKeys.shardOf(key);
        BucketFilters filters = directory.value();
        if (filters != null) {
            out.collect(ShardEntry.directory(shard, filters));
        }
        for (Map.Entry<Long, PageGroup> entry : pages.entries()) {
            out.collect(ShardEntry.pageGroup(shard, entry.getKey(), entry.getValue()));
        }
        for (Map.Entry<Long, FingerprintPage> entry : fingerprintPages.entries()) {
            out.collect(ShardEntry.fingerprintPage(shard, entry.getKey(), entry.getValue()));
        }
    }
}
