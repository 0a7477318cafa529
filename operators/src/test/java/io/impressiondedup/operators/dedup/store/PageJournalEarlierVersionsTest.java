package io.impressiondedup.operators.dedup.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.plan.DedupPlan;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.junit.jupiter.api.Test;

/**
 * Page journal values of the versions earlier releases' checkpoints hold are still redone: version 1 (every entry with
 * both probe hashes, in either format) and version 2 (entries one by one, a fingerprint insert's page and section value
 * as varints). A job restored from such a retained checkpoint finds every journaled insert in its pages. Each value is
 * written here byte by byte, in its release's layout (JournalValues).
 */
class PageJournalEarlierVersionsTest {

    private static final long FINGERPRINT_BUCKET = 20_000;
    private static final long BLOOM_BUCKET = 20_001;

    /** Two fingerprint inserts into part 0, band 0 of one bucket, and one Bloom insert into layer 0 of another. */
    private static final long[][] HASHES = {{0x1234_5678_9abc_def0L, 0x0fed_cba9_8765_4321L},
            {0x7777_0000_1111_2222L, 0x3333_4444_5555_6666L}, {0x0123_4567_89ab_cdefL, 0x7654_3210_fedc_ba98L}};

    /** A shard's directory with one bucket in each format, its pages on the heap, read and written without a cache. */
    private static final class Shard {
        final DedupPlan plan = DedupPlan.builder().capacityPerBucket(1_000_000).shards(128).fpp(0.001)
                .stateFormat(StateFormat.FINGERPRINTS).build();
        final HeapMapState<FingerprintPage> fingerprintPages = new HeapMapState<>();
        final FormatStores stores = FormatStores.uncached(new HeapMapState<>(), fingerprintPages, plan, plan.shards());
        final BucketFilters directory = new BucketFilters();
        final FingerprintBucket fingerprints =
                FingerprintBucket.create(plan.fingerprintScheme(), FingerprintStoreSizing.forPlan(plan));
        final FingerprintPart part = fingerprints.parts().get(0);
        final ScalableBloomFilter bloom = plan.newBucketFilter();

        Shard() {
            directory.put(FINGERPRINT_BUCKET, fingerprints);
            directory.put(BLOOM_BUCKET, bloom);
        }

        /** Replays the journal value {@code value} holds up to its position; returns the entries redone. */
        long replay(ByteBuffer value) throws Exception {
            byte[] bytes = new byte[value.position()];
            value.flip().get(bytes);
            return new PageJournal(new HeapListState(List.of(bytes)), plan.shards()).replay(0, directory, stores);
        }

        /** Each of {@link #HASHES} is found in its bucket's pages. */
        void assertEveryInsertIsInItsPage() {
            for (int i = 0; i < 2; i++) {
                FingerprintPage page = fingerprintPages.get(part.pageKey(HASHES[i][0]));
                assertThat(page).as("the page of entry %s", i).isNotNull();
                assertThat(page.mightContain(FINGERPRINT_BUCKET, HASHES[i][1], part.sizing())).as("entry %s", i).isTrue();
            }
            BloomStore bloomStore = (BloomStore) stores.of(StateFormat.BLOOM);
            bloomStore.beginRecord(0);
            assertThat(bloomStore.select(BLOOM_BUCKET, bloom).mightContain(HASHES[2][0], HASHES[2][1], bloomStore)).isTrue();
        }
    }

    @Test
    void aVersionOneValueOfBothFormatsIsRedoneIntoThePages() throws Exception {
        Shard shard = new Shard();
        ByteBuffer value = ByteBuffer.allocate(128);
        value.put((byte) 1); // value version 1
        value.put((byte) 1).putLong(FINGERPRINT_BUCKET).put((byte) StateFormat.FINGERPRINTS.ordinal()); // a new bucket
        value.put((byte) 0).putLong(HASHES[0][0]).putLong(HASHES[0][1]); // part 0, band 0, h1, h2
        value.put((byte) 0).put((byte) 0).putLong(HASHES[1][0]).putLong(HASHES[1][1]); // the same bucket, part 0, band 0
        value.put((byte) 1).putLong(BLOOM_BUCKET).put((byte) StateFormat.BLOOM.ordinal());
        value.put((byte) 0).putLong(HASHES[2][0]).putLong(HASHES[2][1]); // layer 0

        assertThat(shard.replay(value)).isEqualTo(3);
        shard.assertEveryInsertIsInItsPage();
    }

    @Test
    void aVersionTwoValueOfBothFormatsIsRedoneIntoThePages() throws Exception {
        Shard shard = new Shard();
        long range = shard.part.sizing().valueRange(FINGERPRINT_BUCKET, 0);
        ByteBuffer value = ByteBuffer.allocate(128);
        value.put((byte) 2); // value version 2
        value.put((byte) 1).putLong(FINGERPRINT_BUCKET).put((byte) StateFormat.FINGERPRINTS.ordinal()); // a new bucket
        for (int i = 0; i < 2; i++) {
            if (i > 0) {
                value.put((byte) 0); // the same bucket
            }
            value.put((byte) 0); // part 0, band 0
            putVarint(value, shard.part.sizing().pageOf(HASHES[i][0]));
            putVarint(value, FingerprintStoreSizing.scale(HASHES[i][1], range));
        }
        value.put((byte) 1).putLong(BLOOM_BUCKET).put((byte) StateFormat.BLOOM.ordinal());
        value.put((byte) 0).putLong(HASHES[2][0]).putLong(HASHES[2][1]); // layer 0, both hashes

        assertThat(shard.replay(value)).isEqualTo(3);
        shard.assertEveryInsertIsInItsPage();
    }

    private static void putVarint(ByteBuffer buffer, long value) {
        while ((value & ~0x7FL) != 0) {
            buffer.put((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        buffer.put((byte) value);
    }

    /** One key's journal values. */
    private static final class HeapListState implements ListState<byte[]> {
        private final List<byte[]> values;

        HeapListState(List<byte[]> values) {
            this.values = new ArrayList<>(values);
        }

        @Override
        public Iterable<byte[]> get() {
            return values;
        }

        @Override
        public void add(byte[] value) {
            values.add(value);
        }

        @Override
        public void update(List<byte[]> newValues) {
            values.clear();
            values.addAll(newValues);
        }

        @Override
        public void addAll(List<byte[]> newValues) {
            values.addAll(newValues);
        }

        @Override
        public void clear() {
            values.clear();
        }
    }
}
