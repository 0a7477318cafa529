package io.impressiondedup.operators.dedup.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.serialization.PageGroupSerializer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.metrics.SimpleCounter;
import org.junit.jupiter.api.Test;

class PageCacheTest {

    /** Keyed map state over maps, with an explicit current key, as Flink's backends behave; logs every access. */
    private static final class FakeKeyedMapState implements MapState<Long, PageGroup> {
        final Map<Integer, Map<Long, PageGroup>> byKey = new HashMap<>();
        final List<String> log = new ArrayList<>();
        int currentKey;

        Map<Long, PageGroup> current() {
            return byKey.computeIfAbsent(currentKey, k -> new HashMap<>());
        }

        @Override
        public PageGroup get(Long address) {
            log.add("get " + currentKey + "/" + address);
            return current().get(address);
        }

        @Override
        public void put(Long address, PageGroup group) {
            log.add("put " + currentKey + "/" + address);
            current().put(address, group);
        }

        @Override
        public void putAll(Map<Long, PageGroup> map) {
            current().putAll(map);
        }

        @Override
        public void remove(Long address) {
            current().remove(address);
        }

        @Override
        public boolean contains(Long address) {
            return current().containsKey(address);
        }

        @Override
        public Iterable<Map.Entry<Long, PageGroup>> entries() {
            return current().entrySet();
        }

        @Override
        public Iterable<Long> keys() {
            return current().keySet();
        }

        @Override
        public Iterable<PageGroup> values() {
            return current().values();
        }

        @Override
        public Iterator<Map.Entry<Long, PageGroup>> iterator() {
            return current().entrySet().iterator();
        }

        @Override
        public boolean isEmpty() {
            return current().isEmpty();
        }

        @Override
        public void clear() {
            current().clear();
        }
    }

    private final FakeKeyedMapState state = new FakeKeyedMapState();
    private final SimpleCounter hits = new SimpleCounter();
    private final SimpleCounter misses = new SimpleCounter();
    private final SimpleCounter dirtyEvictions = new SimpleCounter();

    private PageCache<PageGroup> cache(int capacity, boolean copies) {
        return cache(capacity, Long.MAX_VALUE, copies);
    }

    private PageCache<PageGroup> cache(int capacity, long budgetBytes, boolean copies) {
        return new PageCache<>(state, "page group", budgetBytes, PageGroup::heapBytes, capacity, capacity, shard -> state.currentKey = shard,
                copies ? PageGroup::copy : null, hits, misses, dirtyEvictions);
    }

    private static long address(int page) {
        return PageAddress.pack(7, page);
    }

    private static PageGroup groupWith(long bucket, long word) {
        PageGroup group = new PageGroup();
        group.put(bucket, 0, new long[] {word});
        return group;
    }

    /** Makes {@code shard}'s key current, as Flink does before each record of it. */
    private void onShard(int shard) {
        state.currentKey = shard;
    }

    @Test
    void aGroupIsReadFromStateOnceThenServedFromTheHeap() {
        PageCache<PageGroup> cache = cache(4, false);
        onShard(3);
        state.current().put(address(1), groupWith(10, 1));
        PageGroup first = cache.get(3, address(1));
        assertThat(cache.get(3, address(1))).isSameAs(first);
        assertThat(state.log).containsExactly("get 3/" + address(1));
        assertThat(hits.getCount()).isEqualTo(1);
        assertThat(misses.getCount()).isEqualTo(1);
    }

    @Test
    void anAbsentGroupIsRememberedAsAbsent() {
        PageCache<PageGroup> cache = cache(4, false);
        onShard(0);
        assertThat(cache.get(0, address(5))).isNull();
        assertThat(cache.get(0, address(5))).isNull();
        assertThat(state.log).hasSize(1);
    }

    @Test
    void theSamePageAddressOfTwoShardsIsTwoEntries() {
        PageCache<PageGroup> cache = cache(4, false);
        onShard(1);
        state.current().put(address(1), groupWith(10, 1));
        onShard(2);
        state.current().put(address(1), groupWith(10, 2));
        onShard(1);
        PageGroup ofOne = cache.get(1, address(1));
        onShard(2);
        PageGroup ofTwo = cache.get(2, address(1));
        assertThat(ofOne.find(10, 0)).containsExactly(1L);
        assertThat(ofTwo.find(10, 0)).containsExactly(2L);
    }

    @Test
    void aWriteReachesStateOnlyAtTheFlushUnderItsShardsKeyAndTheCurrentKeyIsRestored() {
        PageCache<PageGroup> cache = cache(4, false);
        onShard(1);
        cache.put(1, address(1), groupWith(10, 11));
        onShard(2);
        cache.put(2, address(1), groupWith(10, 22));
        assertThat(state.byKey.getOrDefault(1, Map.of())).isEmpty();

        assertThat(cache.flush()).isEqualTo(2);
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(11L);
        assertThat(state.byKey.get(2).get(address(1)).find(10, 0)).containsExactly(22L);
        assertThat(state.currentKey).isEqualTo(2);
        assertThat(cache.flush()).as("nothing dirty after a flush").isZero();
    }

    @Test
    void aDirtyVictimIsWrittenUnderItsOwnShardsKeyThenTheRecordsKeyIsCurrentAgain() {
        PageCache<PageGroup> cache = cache(1, false);
        onShard(5);
        cache.put(5, address(1), groupWith(10, 55));
        onShard(6);
        cache.get(6, address(2)); // evicts shard 5's dirty group
        assertThat(state.log).containsExactlyInAnyOrder("get 6/" + address(2), "put 5/" + address(1));
        assertThat(state.byKey.get(5).get(address(1)).find(10, 0)).containsExactly(55L);
        assertThat(state.currentKey).isEqualTo(6);
        assertThat(dirtyEvictions.getCount()).isEqualTo(1);
    }

    @Test
    void aCleanVictimIsNotWrittenAndAReferencedEntryGetsASecondChance() {
        PageCache<PageGroup> cache = cache(2, false);
        onShard(0);
        cache.get(0, address(1));
        cache.get(0, address(2));
        cache.get(0, address(1)); // referenced: the hand passes it once
        cache.get(0, address(3)); // evicts address 2, not 1
        state.log.clear();
        cache.get(0, address(1));
        assertThat(state.log).as("address 1 still cached").isEmpty();
        cache.get(0, address(2));
        assertThat(state.log).containsExactly("get 0/" + address(2));
        assertThat(dirtyEvictions.getCount()).isZero();
    }

    @Test
    void manyEvictionsKeepEveryWriteAndEveryKeyReachable() {
        PageCache<PageGroup> cache = cache(37, false);
        onShard(0);
        for (int round = 0; round < 5; round++) {
            for (int page = 0; page < 500; page++) {
                int shard = page % 3;
                onShard(shard);
                PageGroup group = cache.get(shard, address(page));
                if (group == null) {
                    group = new PageGroup();
                }
                group.put(round, 0, new long[] {page});
                cache.put(shard, address(page), group);
            }
        }
        cache.flush();
        for (int page = 0; page < 500; page++) {
            PageGroup stored = state.byKey.get(page % 3).get(address(page));
            assertThat(stored.size()).as("page %s", page).isEqualTo(5);
        }
        assertThat(cache.size()).isEqualTo(37);
    }

    @Test
    void forgettingAShardWritesItsDirtyGroupsAndDropsAllOfThemButNoOtherShards() {
        PageCache<PageGroup> cache = cache(8, false);
        onShard(1);
        cache.put(1, address(1), groupWith(10, 1));
        cache.get(1, address(2));
        onShard(2);
        cache.put(2, address(1), groupWith(10, 2));
        onShard(1);
        cache.forgetShard(1);
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(1L);
        assertThat(cache.size()).isEqualTo(1);
        state.byKey.get(1).remove(address(1)); // the bucket's pages dropped from state
        assertThat(cache.get(1, address(1))).as("read from state again, not resurrected").isNull();
        assertThat(cache.flush()).as("shard 2's group is still dirty").isEqualTo(1);
    }

    @Test
    void aWriteToAPageWhoseEntryWasFreedSinceItsReadIsCachedAgainNotLost() {
        PageCache<PageGroup> cache = cache(4, false);
        onShard(1);
        cache.get(1, address(1)); // the entry a following put of the same page tries first
        cache.forgetShard(1); // frees it
        cache.put(1, address(1), groupWith(10, 1));
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.flush()).isEqualTo(1);
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(1L);
    }

    @Test
    void aWriteAfterTheEntryWasReusedByAnotherPageUpdatesItsOwnPage() {
        PageCache<PageGroup> cache = cache(1, false);
        onShard(1);
        cache.get(1, address(1));
        onShard(2);
        cache.get(2, address(1)); // the single entry now holds shard 2's page
        onShard(1);
        cache.put(1, address(1), groupWith(10, 1));
        onShard(2);
        assertThat(cache.get(2, address(1))).as("shard 2's page, read from state again").isNull();
        cache.flush();
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(1L);
        assertThat(state.byKey.get(2)).doesNotContainKey(address(1));
    }

    @Test
    void onABackendKeepingObjectsStateNeverSharesAnObjectWithTheCache() {
        PageCache<PageGroup> cache = cache(4, true);
        onShard(0);
        state.current().put(address(1), groupWith(10, 1));
        PageGroup cached = cache.get(0, address(1));
        assertThat(cached).isNotSameAs(state.current().get(address(1))).isEqualTo(state.current().get(address(1)));
        setFirstWord(cached, 10, 9);
        cache.put(0, address(1), cached);
        cache.flush();
        PageGroup stored = state.current().get(address(1));
        assertThat(stored.find(10, 0)).containsExactly(9L);
        setFirstWord(cached, 10, 10);
        assertThat(stored.find(10, 0)).as("a later change does not reach the snapshotted object").containsExactly(9L);
    }

    /**
     * Pages smaller than the plan's estimate: the arrays, sized for the estimate, grow while the budget has room, so the
     * budget in bytes (not the first count of entries) bounds what is held, up to the most entries; every page put before a
     * growth is still found after it.
     */
    @Test
    void pagesSmallerThanPlannedFillTheBudgetNotTheFirstSizeOfTheArrays() {
        long groupBytes = groupWith(1, 0).heapBytes() + PageCache.ENTRY_BYTES;
        long budget = 40 * groupBytes;
        PageCache<PageGroup> cache = new PageCache<>(state, "page group", budget, PageGroup::heapBytes, 4, 64,
                shard -> state.currentKey = shard, null, hits, misses, dirtyEvictions);
        onShard(0);
        for (int page = 0; page < 30; page++) {
            cache.put(0, address(page), groupWith(1, page));
        }
        assertThat(cache.capacity()).as("grown from 4").isGreaterThanOrEqualTo(30);
        assertThat(cache.size()).isEqualTo(30);
        assertThat(dirtyEvictions.getCount()).as("nothing evicted while the budget has room").isZero();
        for (int page = 0; page < 30; page++) {
            assertThat(cache.get(0, address(page)).find(1, 0)).as("page %s", page).containsExactly((long) page);
        }
        assertThat(misses.getCount()).isZero();
        for (int page = 30; page < 200; page++) {
            cache.put(0, address(page), groupWith(1, page));
            assertThat(cache.heldBytes()).isLessThanOrEqualTo(budget);
        }
        assertThat(cache.capacity()).as("never past the most entries").isLessThanOrEqualTo(64);
        assertThat(cache.size()).as("the budget bounds it").isLessThanOrEqualTo(40);
    }

    /**
     * Pages grow with their buckets: the cache weighs each at every write and evicts until its heap bytes are within the
     * budget, whatever the count of entries its arrays could hold; what it evicts reaches state.
     */
    @Test
    void theCacheHoldsNoMoreHeapBytesThanItsBudgetAsItsPagesGrow() {
        long budget = 10_000;
        PageCache<PageGroup> cache = cache(1_000, budget, false);
        onShard(0);
        for (int page = 0; page < 200; page++) {
            PageGroup group = groupWith(1, page);
            cache.put(0, address(page), group);
            group.put(2, 0, new long[page % 50]); // grows in place, as a page of a filling bucket does
            cache.put(0, address(page), group);
            assertThat(cache.heldBytes()).as("after page %s", page).isLessThanOrEqualTo(budget);
        }
        assertThat(cache.size()).as("far fewer than the arrays hold").isLessThan(100);
        assertThat(dirtyEvictions.getCount()).isPositive();
        cache.flush();
        for (int page = 0; page < 200; page++) {
            assertThat(state.byKey.get(0).get(address(page)).find(2, 0)).as("page %s reached state", page).hasSize(page % 50);
        }
        PageGroup huge = groupWith(3, 1);
        huge.put(4, 0, new long[2_000]);
        cache.put(0, address(999), huge);
        assertThat(cache.size()).as("a page larger than the budget stays alone").isEqualTo(1);
    }

    @Test
    void theBudgetBuysGroupsOfThePlansSize() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000_000).shards(128).pageBytes(256).build();
        assertThat(plan.liveBuckets()).isEqualTo(5);
        assertThat(PageCache.bytesPerGroup(plan)).isEqualTo(16 + 16 + 8 * 11 + 5 * 256 + 48);
        assertThat(PageCache.groupsFor(64L << 20, plan)).isEqualTo((int) ((64L << 20) / 1448));
        assertThat(PageCache.groupsFor(0, plan)).isZero();
        assertThat(PageCache.groupsFor(1, plan)).isEqualTo(1);
    }

    // The off-heap tier (OffHeapPageTier): what the heap cache evicts, serialized into managed memory.

    /** {@code segments} segments of {@code segmentBytes} each, as the memory manager hands them out. */
    private static List<MemorySegment> memory(int segments, int segmentBytes) {
        List<MemorySegment> memory = new ArrayList<>();
        for (int i = 0; i < segments; i++) {
            memory.add(MemorySegmentFactory.allocateUnpooledSegment(segmentBytes));
        }
        return memory;
    }

    private PageCache<PageGroup> tiered(int capacity, int segments, int segmentBytes) {
        PageCache<PageGroup> cache = cache(capacity, false);
        cache.attachTier(memory(segments, segmentBytes), PageGroupSerializer.INSTANCE);
        return cache;
    }

    @Test
    void aDirtyVictimGoesToTheTierNotToStateAndComesBackDirty() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        onShard(5);
        cache.put(5, address(1), groupWith(10, 55));
        onShard(6);
        cache.get(6, address(2)); // evicts shard 5's dirty group into the tier
        assertThat(state.log).containsExactly("get 6/" + address(2));
        assertThat(dirtyEvictions.getCount()).isZero();
        long[] dirty = new long[8];
        cache.addDirtyBytes(dirty);
        assertThat(dirty[5]).as("the journal's rule sees the dirty page in the tier").isPositive();

        onShard(5);
        assertThat(cache.get(5, address(1)).find(10, 0)).as("taken back from the tier").containsExactly(55L);
        assertThat(state.log).as("not read from state").containsExactly("get 6/" + address(2));
        assertThat(cache.tier().hits()).isEqualTo(1);
        assertThat(cache.flush()).as("still dirty: written once, at the flush").isEqualTo(1);
        assertThat(state.byKey.get(5).get(address(1)).find(10, 0)).containsExactly(55L);
    }

    /**
     * With the heap full, a page read from the tier is not moved back (which would evict another page into the tier: with
     * lookups spread evenly over more pages than the heap holds, every read a move both ways, and old-generation garbage): it
     * is served from the tier, and its change is written back there in place.
     */
    @Test
    void aPageTheHeapHasNoRoomForIsServedFromTheTierAndItsChangeWrittenBackThere() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        onShard(5);
        cache.put(5, address(1), groupWith(10, 55));
        cache.flush(); // page 1 clean in state
        onShard(6);
        cache.put(6, address(2), groupWith(10, 66)); // page 1 into the tier, clean; page 2 on the heap, dirty
        onShard(5);
        PageGroup page = cache.get(5, address(1));
        assertThat(page.find(10, 0)).containsExactly(55L);
        assertThat(cache.tier().hits()).isEqualTo(1);
        onShard(6);
        assertThat(cache.get(6, address(2)).find(10, 0)).containsExactly(66L);
        assertThat(hits.getCount()).as("the heap kept shard 6's page").isEqualTo(1);
        assertThat(cache.tier().hits()).as("and the tier page 1").isEqualTo(1);
        onShard(5);

        setFirstWord(page, 10, 77L); // the record sets bits of its page: the same length
        cache.put(5, address(1), page);
        assertThat(cache.tier().size()).isEqualTo(1);
        assertThat(cache.tier().consistent()).isTrue();
        long[] dirty = new long[8];
        cache.addDirtyBytes(dirty);
        assertThat(dirty[5]).as("the change is a dirty page in the tier").isPositive();
        assertThat(cache.get(5, address(1)).find(10, 0)).as("read back from the tier").containsExactly(77L);

        page.put(11, 0, new long[] {88L}); // a page of a new bucket: a longer record
        cache.put(5, address(1), page);
        assertThat(cache.tier().consistent()).isTrue();
        assertThat(cache.flush()).as("page 1 from the tier, page 2 from the heap").isEqualTo(2);
        assertThat(state.byKey.get(5).get(address(1)).find(10, 0)).containsExactly(77L);
        assertThat(state.byKey.get(5).get(address(1)).find(11, 0)).containsExactly(88L);
        assertThat(dirtyEvictions.getCount()).isZero();
        assertThat(state.log).as("never read from state").noneMatch(access -> access.startsWith("get"));
    }

    @Test
    void aPageTheHeapHasRoomForIsTakenBackFromTheTier() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        onShard(5);
        cache.put(5, address(1), groupWith(10, 55));
        onShard(6);
        cache.put(6, address(2), groupWith(10, 66)); // page 1 into the tier, dirty
        cache.forgetShard(6); // the heap's only entry freed
        onShard(5);
        assertThat(cache.get(5, address(1)).find(10, 0)).containsExactly(55L);
        assertThat(cache.tier().size()).as("moved to the heap").isZero();
        assertThat(cache.get(5, address(1)).find(10, 0)).containsExactly(55L);
        assertThat(cache.tier().hits()).as("the second read a heap hit").isEqualTo(1);
        assertThat(hits.getCount()).isEqualTo(1);
        assertThat(cache.flush()).as("still dirty, on the heap").isEqualTo(1);
        assertThat(state.byKey.get(5).get(address(1)).find(10, 0)).containsExactly(55L);
    }

    @Test
    void aFlushWritesTheTiersDirtyPagesUnderTheirShardsKeysAndKeepsThemClean() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        for (int shard = 1; shard <= 3; shard++) {
            onShard(shard);
            cache.put(shard, address(shard), groupWith(10, shard));
        }
        onShard(3);
        BitSet two = new BitSet();
        two.set(2);
        assertThat(cache.flush(two)).as("shard 2's page only, from the tier").isEqualTo(1);
        assertThat(state.byKey.get(2).get(address(2)).find(10, 0)).containsExactly(2L);
        assertThat(state.byKey.getOrDefault(1, Map.of())).isEmpty();
        assertThat(state.currentKey).isEqualTo(3);
        assertThat(cache.flush()).as("shard 1's in the tier and shard 3's on the heap").isEqualTo(2);
        assertThat(cache.flush()).isZero();
        assertThat(cache.tier().size()).as("kept, clean").isEqualTo(2);
    }

    /**
     * At a checkpoint the journal makes other shards' keys current before the pages are written: a flush writes each of the
     * tier's dirty pages under its own shard's key, whatever key is current, the record's shard's included.
     */
    @Test
    void aFlushWritesTheTiersPagesUnderTheirOwnKeysWhateverKeyIsCurrent() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        onShard(1);
        cache.put(1, address(1), groupWith(10, 1));
        cache.get(1, address(2)); // shard 1's dirty page to the tier; shard 1 is the record's shard
        onShard(3); // as the journal's append for shard 3 leaves it
        assertThat(cache.flush()).isEqualTo(1);
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(1L);
        assertThat(state.byKey.getOrDefault(3, Map.of())).as("nothing under shard 3's key").isEmpty();
        assertThat(state.currentKey).as("the record's shard's key current again").isEqualTo(1);
    }

    @Test
    void theTiersOldestDirtyPageIsWrittenToStateWhenItNeedsRoomAndACleanOneIsDropped() {
        PageCache<PageGroup> cache = tiered(1, 1, 256); // a ring of 256 bytes: a few small groups
        onShard(0);
        for (int page = 0; page < 20; page++) {
            onShard(page % 2);
            if (page % 4 == 3) {
                cache.get(page % 2, address(page)); // absent: not kept in the tier when evicted
            } else {
                cache.put(page % 2, address(page), groupWith(10, page));
            }
            assertThat(cache.tier().consistent()).as("after page %s", page).isTrue();
        }
        assertThat(dirtyEvictions.getCount()).as("the tier's evictions are counted").isPositive();
        assertThat(state.currentKey).isEqualTo(1);
        cache.flush();
        for (int page = 0; page < 20; page++) {
            if (page % 4 != 3) {
                assertThat(state.byKey.get(page % 2).get(address(page)).find(10, 0)).as("page %s", page).containsExactly((long) page);
            }
        }
    }

    /**
     * Pages larger and smaller than a segment, pages growing in place, a ring that wraps (pads), records moved from the tail
     * (holes reclaimed), an index filled before the ring: every write reaches state and the tier stays consistent.
     */
    @Test
    void manyEvictionsThroughTheTierKeepEveryWrite() {
        PageCache<PageGroup> cache = tiered(5, 40, 1024); // about half of the pages' bytes at the end
        int pages = 120;
        int[] puts = new int[pages];
        java.util.Random random = new java.util.Random(42);
        for (int step = 0; step < 1_000; step++) {
            int page = random.nextInt(pages);
            int shard = page % 3;
            onShard(shard);
            PageGroup group = cache.get(shard, address(page));
            if (group == null) {
                group = new PageGroup();
            }
            int bucket = puts[page]++;
            long[] words = new long[1 + (page * 7 + bucket) % 40]; // 1 to 40 words: groups grow unevenly
            words[0] = page;
            group.put(bucket, 0, words);
            cache.put(shard, address(page), group);
            assertThat(cache.tier().consistent()).as("step %s", step).isTrue();
            if (step % 97 == 96) {
                cache.flush();
            }
        }
        assertThat(cache.tier().hits()).isPositive();
        assertThat(dirtyEvictions.getCount()).as("and evictions from the tier").isPositive();
        cache.flush();
        for (int page = 0; page < pages; page++) {
            PageGroup stored = state.byKey.get(page % 3).get(address(page));
            assertThat(stored == null ? 0 : stored.size()).as("page %s", page).isEqualTo(puts[page]);
            for (int bucket = 0; bucket < puts[page]; bucket++) {
                assertThat(stored.find(bucket, 0)[0]).isEqualTo(page);
            }
        }
    }

    /**
     * A page read, evicted into the tier, then written by the record that read it: the tier's copy is older than the heap's
     * and is dropped, so no later eviction of the tier writes it over the newer page in state.
     */
    @Test
    void aWriteToAPageEvictedIntoTheTierSinceItsReadDropsTheTiersOlderCopy() {
        PageCache<PageGroup> cache = tiered(1, 1, 1024);
        onShard(1);
        cache.put(1, address(1), groupWith(10, 1));
        cache.get(1, address(2)); // page 1 to the tier, dirty
        PageGroup page = cache.get(1, address(1)); // back to the heap, dirty; page 2 to... nowhere (absent)
        cache.get(1, address(3)); // page 1 to the tier again, dirty, with one word
        page.put(11, 0, new long[] {2}); // the record that read page 1 changes it and writes it
        cache.put(1, address(1), page);
        assertThat(cache.flush()).as("the heap's page 1 only").isEqualTo(1);
        for (int other = 4; other < 40; other++) { // fill the tier: its oldest records are evicted
            cache.put(1, address(other), groupWith(10, other));
        }
        cache.flush();
        assertThat(state.byKey.get(1).get(address(1)).find(11, 0)).as("the newer page 1 in state").containsExactly(2L);
    }

    @Test
    void forgettingAShardWritesItsDirtyPagesInTheTierAndDropsThem() {
        PageCache<PageGroup> cache = tiered(1, 4, 4096);
        onShard(1);
        cache.put(1, address(1), groupWith(10, 1));
        onShard(2);
        cache.put(2, address(1), groupWith(10, 2)); // shard 1's page into the tier
        cache.put(2, address(2), groupWith(10, 3)); // shard 2's first page into the tier
        onShard(1);
        cache.forgetShard(1);
        assertThat(state.byKey.get(1).get(address(1)).find(10, 0)).containsExactly(1L);
        state.byKey.get(1).remove(address(1)); // the bucket's pages dropped from state
        assertThat(cache.get(1, address(1))).as("not brought back from the tier").isNull();
        onShard(2);
        assertThat(cache.flush()).as("shard 2's two pages").isEqualTo(2);
    }

    /** Changes a group's sub-page in place, as an insert does: its first word. */
    private static void setFirstWord(PageGroup group, long bucket, long word) {
        group.array()[group.offsetOf(bucket, 0)] = word;
    }
}
