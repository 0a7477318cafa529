package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.PageAddress;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.BloomPageStore;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The pages of the current shard's filters, as entries of a keyed {@code MapState}: one entry per
 * page, keyed by {@link PageAddress} (bucket, layer, page). A lookup reads one entry, an insert writes
 * one, whatever the filter size and on every state backend; nothing serializes a whole filter.
 *
 * <p>The state is keyed by shard, so the entries read are those of the key Flink has set as current.
 * {@link #select(long)} chooses the bucket before a filter is asked.
 */
final class MapStateBloomPages implements BloomPageStore {

    private final MapState<Long, long[]> pages;
    private long bucket;

    MapStateBloomPages(MapState<Long, long[]> pages) {
        this.pages = pages;
    }

    void select(long bucket) {
        this.bucket = bucket;
    }

    @Override
    public long[] readPage(int layer, int page) {
        try {
            return pages.get(PageAddress.pack(bucket, layer, page));
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot read Bloom page " + page + " of layer " + layer + " of bucket " + bucket, e);
        }
    }

    @Override
    public void writePage(int layer, int page, long[] words) {
        try {
            pages.put(PageAddress.pack(bucket, layer, page), words);
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot write Bloom page " + page + " of layer " + layer + " of bucket " + bucket, e);
        }
    }

    /** Removes every page {@code filter} may have written for {@code bucket}. */
    void removeAll(long bucket, ScalableBloomFilter filter) {
        try {
            for (int layer = 0; layer < filter.layerCount(); layer++) {
                BloomLayer bloomLayer = filter.layers().get(layer);
                for (int page = 0; page < bloomLayer.geometry().numPages(); page++) {
                    pages.remove(PageAddress.pack(bucket, layer, page));
                }
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot remove the Bloom pages of bucket " + bucket, e);
        }
    }
}
