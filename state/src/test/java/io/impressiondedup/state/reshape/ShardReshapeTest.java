package io.impressiondedup.state.reshape;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.fingerprints.EliasFanoSection;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ShardReshapeTest {

    private static final long BUCKET = 20_000;
    private static final FingerprintScheme UNKEYED = FingerprintScheme.withKeyBits(64);
    private static final FingerprintScheme KEYED = UNKEYED.withAdIdsKeyed(true);
    private static final FingerprintStoreSizing SMALL = new FingerprintStoreSizing(100, 0.01, 5, 3);
    private static final FingerprintStoreSizing LARGE = new FingerprintStoreSizing(400, 0.001, 5, 7);

    private static BucketFilters whole(FingerprintScheme scheme, FingerprintStoreSizing sizing, long inserted) {
        BucketFilters directory = new BucketFilters();
        directory.put(BUCKET, new FingerprintBucket(List.of(new FingerprintPart(scheme, sizing, 0, 1, inserted, 0))));
        return directory;
    }

    /**
     * Shards that ran under other options (a restart with another --capacity, --fpp or a new secret between the first
     * records of a day in one shard and in the other) merge as they are: each part keeps its own sizing, scheme and count.
     */
    @Test
    void shardsSizedAndKeyedDifferentlyMergeIntoPartsEachKeepingItsOwn() {
        ShardReshape plan = ShardReshape.plan(4, 2, Map.of(0, whole(UNKEYED, SMALL, 30), 1, whole(KEYED, LARGE, 50), 3, whole(UNKEYED, SMALL, 7)));

        assertThat(((FingerprintBucket) plan.directories().get(0).get(BUCKET)).parts()).containsExactly(
                new FingerprintPart(UNKEYED, SMALL, 0, 2, 30, 0), new FingerprintPart(KEYED, LARGE, 1, 2, 50, 0));
        assertThat(((FingerprintBucket) plan.directories().get(1).get(BUCKET)).parts()).as("shard 2 never held the bucket")
                .containsExactly(new FingerprintPart(UNKEYED, SMALL, 1, 2, 7, 0));
    }

    /** To fewer shards and back: every part goes back to the one shard that holds its cell, whole, with its own count. */
    @Test
    void aReshapeToFewerShardsAndBackGivesBackTheDirectoriesItStartedFrom() {
        Map<Integer, BucketFilters> eight = new TreeMap<>();
        for (int shard = 0; shard < 8; shard++) {
            eight.put(shard, whole(shard % 2 == 0 ? UNKEYED : KEYED, shard % 3 == 0 ? SMALL : LARGE, 10 + shard));
        }
        Map<Integer, BucketFilters> two = ShardReshape.plan(8, 2, eight).directories();
        assertThat(((FingerprintBucket) two.get(1).get(BUCKET)).parts()).extracting(FingerprintPart::cellIndex).containsExactly(0, 1, 2, 3);

        assertThat(ShardReshape.plan(2, 8, two).directories()).isEqualTo(eight);
        Map<Integer, BucketFilters> four = ShardReshape.plan(2, 4, two).directories();
        assertThat(((FingerprintBucket) four.get(3).get(BUCKET)).parts()).as("shard 3 of 4: old shards 6 and 7 as halves")
                .containsExactly(new FingerprintPart(UNKEYED, SMALL, 0, 2, 16, 0), new FingerprintPart(KEYED, LARGE, 1, 2, 17, 0));
    }

    /** A part wider than the new shards is copied to each, whole: each copy holds the values of the cell it covers. */
    @Test
    void aWholeBucketIsCopiedToEachChildAndABloomFilterToo() {
        BucketFilters directory = whole(UNKEYED, SMALL, 30);
        directory.put(BUCKET + 1, ScalableBloomFilter.create(UNKEYED, 100, 0.01, 32));
        ShardReshape plan = ShardReshape.plan(2, 6, Map.of(1, directory));

        assertThat(plan.directories().keySet()).containsExactly(3, 4, 5);
        for (int child = 3; child < 6; child++) {
            assertThat(plan.directories().get(child)).isEqualTo(directory);
        }
        assertThat(plan.childrenOf(1)).containsExactly(3, 4, 5);
    }

    @Test
    void aBloomBucketCannotBeMergedAndTheRefusalNamesItAndWhatWorks() {
        BucketFilters bloom = new BucketFilters();
        bloom.put(BUCKET, ScalableBloomFilter.create(UNKEYED, 100, 0.01, 32));
        assertThatThrownBy(() -> ShardReshape.plan(4, 2, Map.of(0, whole(UNKEYED, SMALL, 1), 3, bloom)))
                .isInstanceOf(ReshapeRefusedException.class)
                .hasMessageStartingWith("--shards 2: bucket 20000 of shard 3 is in the bloom format")
                .hasMessageContaining("--state-format fingerprints").hasMessageEndingWith("Nothing was written.");
    }

    /** Halves of an earlier merge cannot go to three times the shards: a half would straddle two of them. */
    @Test
    void aFactorThatWouldCutAPartAcrossANewShardIsRefusedNamingTheCountsThatWork() {
        Map<Integer, BucketFilters> halves = ShardReshape.plan(8, 4, Map.of(2, whole(UNKEYED, SMALL, 5), 3, whole(UNKEYED, SMALL, 6)))
                .directories();
        assertThatThrownBy(() -> ShardReshape.plan(4, 12, halves)).isInstanceOf(ReshapeRefusedException.class)
                .hasMessage("--shards 12: bucket 20000 of shard 1 holds cell 0 of 2 of its shard, from an earlier reshape to fewer shards,"
                        + " and 3 times the shards would cut that cell across a new shard's boundary (3 and 2 must divide one another)."
                        + " Counts that work while it lives: --shards 8, --shards 16, --shards 24, --shards 32; any multiple once bucket"
                        + " 20000 has expired. Nothing was written.");
        Map<Integer, BucketFilters> sixteen = ShardReshape.plan(4, 16, halves).directories();
        assertThat(sixteen.keySet()).containsExactly(4, 5, 6, 7);
        assertThat(((FingerprintBucket) sixteen.get(5).get(BUCKET)).parts()).as("4 times: a half covers two new shards, a copy each")
                .containsExactly(new FingerprintPart(UNKEYED, SMALL, 0, 1, 5, 0));
        assertThat(((FingerprintBucket) sixteen.get(6).get(BUCKET)).parts()).containsExactly(new FingerprintPart(UNKEYED, SMALL, 0, 1, 6, 0));
    }

    @Test
    void aCountNeitherAMultipleNorADivisorIsRefusedBeforeAnyDirectoryIsLookedAt() {
        assertThatThrownBy(() -> ShardReshape.plan(128, 48, Map.of())).isInstanceOf(ReshapeRefusedException.class)
                .hasMessageContaining("neither a multiple nor a divisor of the savepoint's 128 shards");
    }

    /**
     * A page's sections go where their parts go: to fewer shards the whole page moves to its cell's keys; to more, a
     * section of a half goes to the child that holds that half, re-keyed, and a section of a whole bucket to every child.
     */
    @Test
    void aPagesSectionsMoveWithTheirParts() {
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(100, 0.01, 5, 10);
        assertThat(ShardReshape.plan(4, 2, Map.of(3, whole(UNKEYED, sizing, 1))).wholePageMoves(3, FingerprintBucket.pageKey(10, 4)))
                .isDeepEqualTo(new long[][] {{1, FingerprintBucket.pageKey(20, 14)}});

        BucketFilters shard = new BucketFilters();
        shard.put(BUCKET, new FingerprintBucket(List.of(new FingerprintPart(UNKEYED, sizing, 1, 2, 3, 0))));
        shard.put(BUCKET + 1, new FingerprintBucket(List.of(new FingerprintPart(UNKEYED, new FingerprintStoreSizing(100, 0.01, 5, 20), 0, 1, 3, 0))));
        ShardReshape plan = ShardReshape.plan(2, 4, Map.of(0, shard));
        assertThat(plan.splitsPagesOf(0)).isTrue();
        FingerprintPage page = new FingerprintPage(); // key (20, 13): the half's page 3 and the whole bucket's page 13
        page.putSection(BUCKET, 0, EliasFanoSection.of(sizing.valueRange(0), 5));
        page.putSection(BUCKET + 1, 0, EliasFanoSection.of(sizing.valueRange(0), 6));
        List<String> moved = new ArrayList<>();
        plan.moveFingerprintPage(0, FingerprintBucket.pageKey(20, 13), page, (to, key, sections) -> moved.add(to + " " + FingerprintBucket.pageCountOf(key)
                + "/" + FingerprintBucket.pageIndexOf(key) + " " + sections));
        assertThat(moved).containsExactlyInAnyOrder(
                "1 10/3 FingerprintPage{20000/0:1}",
                "0 20/13 FingerprintPage{20001/0:1}",
                "1 20/13 FingerprintPage{20001/0:1}");
    }
}
