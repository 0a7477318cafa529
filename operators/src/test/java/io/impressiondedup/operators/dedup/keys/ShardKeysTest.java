package io.impressiondedup.operators.dedup.keys;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class ShardKeysTest {

    @Test
    void withAsManyShardsAsKeyGroupsEveryKeyGroupOwnsExactlyOneShard() {
        ShardKeys keys = new ShardKeys(128, 128);
        for (int shard = 0; shard < 128; shard++) {
            assertThat(KeyGroupRangeAssignment.assignToKeyGroup(keys.keyOf(shard), 128)).isEqualTo(shard);
            assertThat(keys.shardOf(keys.keyOf(shard))).isEqualTo(shard);
        }
    }

    @Test
    void moreShardsThanKeyGroupsSpreadEvenly() {
        ShardKeys keys = new ShardKeys(512, 128);
        int[] perGroup = new int[128];
        Set<Integer> distinct = new HashSet<>();
        for (int shard = 0; shard < 512; shard++) {
            perGroup[KeyGroupRangeAssignment.assignToKeyGroup(keys.keyOf(shard), 128)]++;
            distinct.add(keys.keyOf(shard));
        }
        assertThat(perGroup).containsOnly(4);
        assertThat(distinct).hasSize(512);
    }

    @Test
    void subtasksHoldEqualSharesOfShardsAtEveryDivisorParallelism() {
        ShardKeys keys = new ShardKeys(128, 128);
        for (int parallelism : new int[] {1, 2, 4, 8, 16, 32, 64, 128}) {
            int[] perSubtask = new int[parallelism];
            for (int shard = 0; shard < 128; shard++) {
                perSubtask[KeyGroupRangeAssignment.assignKeyToParallelOperator(keys.keyOf(shard), 128, parallelism)]++;
            }
            assertThat(perSubtask).as("parallelism %s", parallelism).containsOnly(128 / parallelism);
        }
    }

    @Test
    void keysAreTheSameInstanceEveryTime() {
        ShardKeys keys = new ShardKeys(128, 128);
        assertThat(keys.keyOf(7)).isSameAs(keys.keyOf(7));
    }
}
