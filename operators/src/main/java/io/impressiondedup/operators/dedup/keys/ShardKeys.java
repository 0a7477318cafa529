package io.impressiondedup.operators.dedup.keys;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The Flink key of each shard, chosen so that shard s lands in key group s (mod max parallelism).
 *
 * <p>Flink assigns a key to a key group by a murmur hash of its {@code hashCode()}. Keying by the
 * plain shard number would scatter 128 shards over 128 key groups at random: about a third of the key
 * groups would get none and some would get three, so at parallelism 128 some subtasks would hold no
 * state and others three shards, and at every parallelism the load would be uneven. Instead, for each
 * shard we pick the smallest non-negative integer whose key group is the shard's own. With the
 * default of shards = max parallelism, every key group owns exactly one shard, its filters move with
 * it when the job is rescaled, and subtasks hold equal shares.
 */
public final class ShardKeys implements Serializable {

    private static final long serialVersionUID = 1L;

    private final int shards;
    private final int maxParallelism;
    private final Integer[] keyOfShard;
    private transient Map<Integer, Integer> shardOfKey;

    public ShardKeys(int shards, int maxParallelism) {
        checkArgument(shards > 0, "shards must be positive, but was %s", shards);
        checkArgument(
                maxParallelism > 0 && maxParallelism <= KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM,
                "max parallelism must be in [1, %s], but was %s",
                KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM,
                maxParallelism);
        this.shards = shards;
        this.maxParallelism = maxParallelism;
        this.keyOfShard = new Integer[shards];
        int[] foundInGroup = new int[maxParallelism];
        int assigned = 0;
        for (int candidate = 0; assigned < shards; candidate++) {
            int group = KeyGroupRangeAssignment.assignToKeyGroup(candidate, maxParallelism);
            int shard = group + foundInGroup[group] * maxParallelism;
            foundInGroup[group]++;
            if (shard < shards) {
                keyOfShard[shard] = candidate;
                assigned++;
            }
        }
    }

    public int shards() {
        return shards;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    /** The Flink key of {@code shard} (a cached boxed instance: no allocation per record). */
    public Integer keyOf(int shard) {
        return keyOfShard[shard];
    }

    /** The shard a Flink key stands for, for logs and metrics. */
    public int shardOf(Integer key) {
        if (shardOfKey == null) {
            Map<Integer, Integer> map = new HashMap<>();
            for (int shard = 0; shard < shards; shard++) {
                map.put(keyOfShard[shard], shard);
            }
            shardOfKey = map;
        }
        Integer shard = shardOfKey.get(key);
        if (shard == null) {
            throw new IllegalArgumentException("Key " + key + " is not a shard key of " + this);
        }
        return shard;
    }

    @Override
    public String toString() {
        return "ShardKeys{shards=" + shards + ", maxParallelism=" + maxParallelism + '}';
    }
}
