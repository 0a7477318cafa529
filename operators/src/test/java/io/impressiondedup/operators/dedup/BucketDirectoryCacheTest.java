package io.impressiondedup.operators.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ValueState;
import org.junit.jupiter.api.Test;

class BucketDirectoryCacheTest {

    private static final DedupPlan PLAN = DedupPlan.builder().capacityPerBucket(1000).shards(4).build();

    /** Keyed value state over a map, with an explicit current key, as Flink's backends behave. */
    private static final class FakeKeyedState implements ValueState<BucketFilters> {
        final Map<Integer, BucketFilters> values = new HashMap<>();
        final List<Integer> keysWritten = new ArrayList<>();
        int currentKey;

        @Override
        public BucketFilters value() {
            return values.get(currentKey);
        }

        @Override
        public void update(BucketFilters value) {
            values.put(currentKey, value);
            keysWritten.add(currentKey);
        }

        @Override
        public void clear() {
            values.remove(currentKey);
        }
    }

    private final FakeKeyedState state = new FakeKeyedState();
    private final BucketDirectoryCache cache = new BucketDirectoryCache(state, 4, shard -> state.currentKey = shard);

    private static BucketFilters directoryWith(long... buckets) {
        BucketFilters directory = new BucketFilters();
        for (long bucket : buckets) {
            directory.put(bucket, PLAN.newBucketFilter());
        }
        return directory;
    }

    @Test
    void aDirectoryIsReadFromStateOnceAndThenServedFromTheHeap() throws Exception {
        state.currentKey = 2;
        state.values.put(2, directoryWith(10));
        BucketFilters first = cache.get(2);
        state.values.put(2, directoryWith(99)); // not read again
        assertThat(cache.get(2)).isSameAs(first);
        assertThat(first.get(10)).isNotNull();
        assertThat(first).isNotSameAs(state.values.get(2));
    }

    @Test
    void changesReachStateOnlyAtFlushAndAsACopy() throws Exception {
        state.currentKey = 1;
        cache.get(1).put(5, PLAN.newBucketFilter());
        cache.markChanged(1);
        cache.markChanged(1);
        assertThat(state.values).isEmpty();

        state.currentKey = 3; // flush selects each shard's key itself
        cache.flush();
        assertThat(state.keysWritten).containsExactly(1);
        BucketFilters stored = state.values.get(1);
        assertThat(stored).isEqualTo(cache.get(1)).isNotSameAs(cache.directories()[1]);

        cache.directories()[1].put(6, PLAN.newBucketFilter());
        assertThat(stored.get(6)).as("the stored copy is not the cached object").isNull();
        cache.flush();
        assertThat(state.keysWritten).as("nothing changed since the last flush").containsExactly(1);
    }

    @Test
    void writeThroughClearsTheStateOfAnEmptiedDirectory() throws Exception {
        state.currentKey = 0;
        state.values.put(0, directoryWith(7));
        cache.get(0).remove(7);
        cache.writeThrough(0);
        assertThat(state.values).doesNotContainKey(0);
        assertThat(cache.directories()[0]).isNull();
    }

    @Test
    void aShardChangedDroppedAndChangedAgainIsListedOnceBetweenFlushes() throws Exception {
        for (int round = 0; round < 3; round++) { // would overflow the list of 4 if listed again each time
            for (int shard = 0; shard < 4; shard++) {
                state.currentKey = shard;
                cache.get(shard).put(round, PLAN.newBucketFilter());
                cache.markChanged(shard);
                cache.get(shard).remove(round);
                cache.writeThrough(shard);
                cache.get(shard).put(round + 100, PLAN.newBucketFilter());
                cache.markChanged(shard);
            }
        }
        cache.flush();
        assertThat(state.values).hasSize(4);
    }
}
