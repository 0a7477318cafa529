package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.BucketFilters;
import java.util.function.IntConsumer;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/**
 * The bucket directory of every shard of one subtask, held on the heap in front of its keyed state.
 *
 * <p><b>Why.</b> Every record reads its shard's directory (which buckets are live, their filters'
 * geometry and counts) and every unique record changes it (insert counts). Reading and writing it in
 * RocksDB per record would double the state traffic, so the directory lives here and a copy is
 * written back to keyed state by {@link #flush()}, which the operator calls before every checkpoint
 * or savepoint barrier leaves it ({@code prepareSnapshotPreBarrier}) and at end of input. State
 * therefore always holds a directory consistent with the pages of the same checkpoint.
 *
 * <p><b>Copies.</b> State is given a copy, never the cached object: the heap backend's asynchronous
 * snapshot must never see an object the task thread is changing.
 *
 * <p><b>Keys.</b> Keyed state is read and written for the current key. {@link #get} and {@link
 * #writeThrough} must be called with the shard's key current; {@link #flush()} sets each changed
 * shard's key itself through the given key setter.
 *
 * <p>Not thread-safe: the task thread only.
 */
final class BucketDirectoryCache {

    private final ValueState<BucketFilters> state;
    private final IntConsumer selectShardKey;
    private final BucketFilters[] directories;
    /** Whether a shard changed since the last flush; {@link #changedShards} lists each such shard once. */
    private final boolean[] changed;
    private final int[] changedShards;
    private int changedCount;

    /**
     * @param state the directory's keyed state
     * @param shards the number of shards (indexes of the cache)
     * @param selectShardKey makes a shard's key the current key of the keyed state backend
     */
    BucketDirectoryCache(ValueState<BucketFilters> state, int shards, IntConsumer selectShardKey) {
        this.state = state;
        this.selectShardKey = selectShardKey;
        this.directories = new BucketFilters[shards];
        this.changed = new boolean[shards];
        this.changedShards = new int[shards];
    }

    /** Puts a directory read from state at restore (a copy is kept). */
    void restore(int shard, BucketFilters stored) {
        directories[shard] = stored.copy();
    }

    /** Puts every directory of {@code backend}'s state at restore, each under the shard of its key. */
    void restoreAll(KeyedStateBackend<Integer> backend, ShardKeys shardKeys) throws Exception {
        backend.applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, DedupStateLayout.directory(), (key, stored) -> {
            BucketFilters restored = stored.value();
            if (restored != null) {
                restore(shardKeys.shardOf(key), restored);
            }
        });
    }

    /** The directory of {@code shard} (loaded from state on first use, or new); its key must be current. */
    BucketFilters get(int shard) throws Exception {
        BucketFilters directory = directories[shard];
        if (directory == null) {
            BucketFilters stored = state.value();
            directory = stored == null ? new BucketFilters() : stored.copy();
            directories[shard] = directory;
        }
        return directory;
    }

    /** Records that {@code shard}'s directory changed; it is written back at the next {@link #flush()}. */
    void markChanged(int shard) {
        if (!changed[shard]) {
            changed[shard] = true;
            changedShards[changedCount++] = shard;
        }
    }

    /**
     * Writes {@code shard}'s directory to state now (its key must be current), or clears the state
     * and forgets it if it is empty. Used when a bucket is dropped, so that state never lists a bucket
     * whose pages are gone. The shard stays listed as changed if it was: it is listed once between
     * flushes, and un-listing it here would let the next change list it again (overflowing the list).
     */
    void writeThrough(int shard) throws Exception {
        BucketFilters directory = directories[shard];
        if (directory == null || directory.isEmpty()) {
            state.clear();
            directories[shard] = null;
        } else {
            state.update(directory.copy());
        }
    }

    /** Writes every changed directory back to keyed state (a copy each). */
    void flush() throws Exception {
        for (int i = 0; i < changedCount; i++) {
            int shard = changedShards[i];
            if (changed[shard] && directories[shard] != null) {
                selectShardKey.accept(shard);
                state.update(directories[shard].copy());
            }
            changed[shard] = false;
        }
        changedCount = 0;
    }

    /** The cached directories by shard ({@code null} where a shard has none here), for gauges. */
    BucketFilters[] directories() {
        return directories;
    }
}
