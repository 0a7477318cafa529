package io.impressiondedup.state.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.TestElements;
import io.impressiondedup.state.bloom.HeapBloomPages;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

class SerializerRoundTripTest {

    private static <T> T roundTrip(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    private static ScalableBloomFilter grownFilter() {
        ScalableBloomFilter filter = ScalableBloomFilter.create(new FingerprintScheme(96, 77), 100, 0.002, 4);
        HeapBloomPages pages = new HeapBloomPages();
        TestElements elements = new TestElements(1);
        for (int i = 0; i < 250; i++) {
            long[] h = elements.next();
            filter.putIfAbsent(h[0], h[1], pages);
        }
        return filter;
    }

    @Test
    void aPageGroupRoundTripsWordForWord() throws IOException {
        PageGroup group = new PageGroup();
        group.put(20_000, 0, new long[] {0L, -1L, 0x8000000000000001L, 42L});
        group.put(-3, 255, new long[] {7L});
        PageGroup read = roundTrip(PageGroupSerializer.INSTANCE, group);
        assertThat(read).isEqualTo(group);
        assertThat(read.find(-3, 255)).containsExactly(7L);
    }

    @Test
    void copyingASerializedGroupCopiesTheBytes() throws IOException {
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {1L, 2L, 3L});
        DataOutputSerializer out = new DataOutputSerializer(64);
        PageGroupSerializer.INSTANCE.serialize(group, out);
        DataOutputSerializer copy = new DataOutputSerializer(64);
        PageGroupSerializer.INSTANCE.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copy);
        assertThat(copy.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());
    }

    @Test
    void aFilterRoundTripsWithItsSchemeDesignAndLayers() throws IOException {
        ScalableBloomFilter filter = grownFilter();
        ScalableBloomFilter read = roundTrip(ScalableBloomFilterSerializer.INSTANCE, filter);

        assertThat(read).isEqualTo(filter);
        assertThat(read.fingerprintScheme()).isEqualTo(new FingerprintScheme(96, 77));
        assertThat(read.layerCount()).isEqualTo(2);
        assertThat(ScalableBloomFilterSerializer.serializedSize(2)).isEqualTo(serializedLength(filter));
    }

    @Test
    void theAdIdFlagRoundTripsInTheCurrentFormat() throws IOException {
        ScalableBloomFilter keyed = ScalableBloomFilter.create(new FingerprintScheme(64, 5, true), 10, 0.01, 1);
        ScalableBloomFilter unkeyed = ScalableBloomFilter.create(new FingerprintScheme(64, 5, false), 10, 0.01, 1);

        assertThat(roundTrip(ScalableBloomFilterSerializer.INSTANCE, keyed).fingerprintScheme().adIdsKeyed()).isTrue();
        assertThat(roundTrip(ScalableBloomFilterSerializer.INSTANCE, unkeyed).fingerprintScheme().adIdsKeyed()).isFalse();
        assertThat(bytes(ScalableBloomFilterSerializer.INSTANCE, keyed)[0]).as("format version byte").isEqualTo((byte) 2);
    }

    @Test
    void formatV1ReadsAsUnkeyedAndAVersionOneSerializerWritesItByteForByte() throws IOException {
        ScalableBloomFilter filter = grownFilter();
        byte[] v2 = bytes(ScalableBloomFilterSerializer.INSTANCE, filter);
        // v1 is v2 without the ad-id byte after the seed (version byte, int key bits, long seed).
        byte[] v1 = new byte[v2.length - 1];
        System.arraycopy(v2, 0, v1, 0, 13);
        System.arraycopy(v2, 14, v1, 13, v2.length - 14);
        v1[0] = 1;
        ScalableBloomFilterSerializer versionOne = new ScalableBloomFilterSerializer(1);

        ScalableBloomFilter read = versionOne.deserialize(new DataInputDeserializer(v1));
        assertThat(read).isEqualTo(filter);
        assertThat(read.fingerprintScheme().adIdsKeyed()).isFalse();
        assertThat(bytes(versionOne, read)).isEqualTo(v1);
        assertThatThrownBy(() -> ScalableBloomFilterSerializer.INSTANCE.deserialize(new DataInputDeserializer(v1)))
                .hasMessageContaining("format 1");
        ScalableBloomFilter keyed = ScalableBloomFilter.create(new FingerprintScheme(64, 5, true), 10, 0.01, 1);
        assertThatThrownBy(() -> bytes(versionOne, keyed)).isInstanceOf(IOException.class).hasMessageContaining("v1 cannot hold");
    }

    @Test
    void anUnknownAdIdHashIsRejectedAsCorrupt() throws IOException {
        byte[] bytes = bytes(ScalableBloomFilterSerializer.INSTANCE, grownFilter());
        bytes[13] = 2;
        assertThatThrownBy(() -> ScalableBloomFilterSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class).hasMessageContaining("ad-id hash 2");
    }

    @Test
    void aVersionOneDirectorySnapshotMigratesAndItsSerializerReadsV1Filters() throws IOException {
        BucketFiltersSerializer.Snapshot old = new BucketFiltersSerializer.Snapshot();
        old.readSnapshot(1, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());

        assertThat(old.restoreSerializer()).isEqualTo(new BucketFiltersSerializer(1));
        assertThat(BucketFiltersSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAfterMigration())
                .isTrue();
        BucketFilters directory = new BucketFilters();
        directory.put(7, grownFilter());
        assertThat(roundTrip(old.restoreSerializer(), directory)).isEqualTo(directory);
        assertThat(bytes(old.restoreSerializer(), directory).length + 1).as("v2 adds the ad-id byte")
                .isEqualTo(bytes(new BucketFiltersSerializer(2), directory).length);
        assertThat(bytes(new BucketFiltersSerializer(2), directory).length + 1).as("v3 adds the format tag")
                .isEqualTo(bytes(BucketFiltersSerializer.INSTANCE, directory).length);
    }

    @Test
    void aDirectoryHoldingBothFormatsRoundTripsAndEachBucketKeepsItsSizing() throws IOException {
        BucketFilters directory = new BucketFilters();
        directory.put(20_000, grownFilter());
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(3_350, 0.001, 5, 24);
        directory.put(20_001, whole(new FingerprintScheme(96, 77, true), sizing, 7_001));
        directory.put(20_002, whole(FingerprintScheme.withKeyBits(64), new FingerprintStoreSizing(10, 0.01, 3, 2), 0));

        BucketFilters read = roundTrip(BucketFiltersSerializer.INSTANCE, directory);

        assertThat(read).isEqualTo(directory);
        assertThat(read.filterAt(1).format()).isEqualTo(StateFormat.FINGERPRINTS);
        FingerprintPart part = ((FingerprintBucket) read.filterAt(1)).parts().get(0);
        assertThat(part.sizing().valueRange(1)).isEqualTo(sizing.valueRange(1));
        assertThat(read.filterAt(1).inserted()).isEqualTo(7_001);
        assertThat(part.fingerprintScheme().adIdsKeyed()).isTrue();
    }

    @Test
    void aBucketInPartsRoundTripsEachPartWithItsOwnSizingSchemeCellAndCounts() throws IOException {
        BucketFilters directory = new BucketFilters();
        FingerprintStoreSizing small = new FingerprintStoreSizing(10, 0.01, 3, 2);
        FingerprintStoreSizing large = new FingerprintStoreSizing(3_350, 0.001, 5, 24);
        directory.put(20_001, new FingerprintBucket(List.of(
                new FingerprintPart(FingerprintScheme.withKeyBits(64), small, 0, 2, 31, 0),
                new FingerprintPart(new FingerprintScheme(96, 77, true), large, 2, 4, 7_001, 12),
                new FingerprintPart(FingerprintScheme.withKeyBits(64), large, 3, 4, 0, 0))));

        BucketFilters read = roundTrip(BucketFiltersSerializer.INSTANCE, directory);

        assertThat(read).isEqualTo(directory);
        assertThat(((FingerprintBucket) read.filterAt(0)).parts()).extracting(FingerprintPart::cellIndex).containsExactly(0, 2, 3);
        assertThat(read.filterAt(0).inserted()).isEqualTo(31 + 7_001 + 12);
    }

    /**
     * Directory format v3 held a bucket merged from k shards as one scheme, one sizing and one count summed over them
     * (fingerprint bucket format v1, pinned here byte by byte): it reads as k parts, each counting the sum, which
     * keeps every part's bands within their size (FingerprintBucketFormat), and is migrated to v4 on restore.
     */
    @Test
    void aVersionThreeBucketMergedFromThreeShardsReadsAsThreePartsEachCountingTheSum() throws IOException {
        DataOutputSerializer v3 = new DataOutputSerializer(128);
        v3.writeInt(1); // buckets
        v3.writeLong(20_005);
        v3.writeByte(1); // fingerprints
        v3.writeByte(1); // bucket format v1
        v3.writeInt(64);
        v3.writeLong(0x5DEECE66DL); // the default seed
        v3.writeByte(0);
        v3.writeLong(1_000);
        v3.writeDouble(0.001);
        v3.writeInt(5);
        v3.writeInt(7);
        v3.writeInt(3); // sub-shards
        v3.writeLong(2_500);
        BucketFiltersSerializer.Snapshot old = new BucketFiltersSerializer.Snapshot();
        old.readSnapshot(3, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());
        assertThat(BucketFiltersSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAfterMigration())
                .isTrue();

        BucketFilters read = old.restoreSerializer().deserialize(new DataInputDeserializer(v3.getCopyOfBuffer()));

        FingerprintStoreSizing sizing = new FingerprintStoreSizing(1_000, 0.001, 5, 7);
        assertThat(((FingerprintBucket) read.get(20_005)).parts()).containsExactly(
                new FingerprintPart(FingerprintScheme.withKeyBits(64), sizing, 0, 3, 2_500, 0),
                new FingerprintPart(FingerprintScheme.withKeyBits(64), sizing, 1, 3, 2_500, 0),
                new FingerprintPart(FingerprintScheme.withKeyBits(64), sizing, 2, 3, 2_500, 0));
        assertThat(roundTrip(BucketFiltersSerializer.INSTANCE, read)).isEqualTo(read);
        assertThatThrownBy(() -> bytes(old.restoreSerializer(), read)).as("v3 cannot write parts").isInstanceOf(IOException.class)
                .hasMessageContaining("only one whole part without overflow");
    }

    @Test
    void aVersionTwoDirectorySnapshotMigratesAndItsSerializerRefusesToWriteAFingerprintBucket() throws IOException {
        BucketFiltersSerializer.Snapshot old = new BucketFiltersSerializer.Snapshot();
        old.readSnapshot(2, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());
        assertThat(BucketFiltersSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAfterMigration())
                .isTrue();
        BucketFilters bloomOnly = new BucketFilters();
        bloomOnly.put(7, grownFilter());
        assertThat(roundTrip(old.restoreSerializer(), bloomOnly)).isEqualTo(bloomOnly);

        BucketFilters mixed = bloomOnly.copy();
        mixed.put(8, whole(FingerprintScheme.withKeyBits(64), new FingerprintStoreSizing(10, 0.01, 3, 2), 1));
        assertThatThrownBy(() -> bytes(old.restoreSerializer(), mixed)).isInstanceOf(IOException.class)
                .hasMessageContaining("format 2 cannot hold bucket 8 in the fingerprint format");
    }

    @Test
    void aReleaseThatReadsUpToVersionThreeRefusesAVersionFourDirectoryNamingTheVersion() {
        // What a release reading directory format v3 does with this release's state (its code is this class at version 3).
        VersionedSerializerSnapshot<BucketFilters> previousRelease = new VersionedSerializerSnapshot<>(3, BucketFiltersSerializer::new) {};
        assertThatThrownBy(() -> previousRelease.readSnapshot(BucketFiltersSerializer.CURRENT_VERSION, new DataInputDeserializer(new byte[0]),
                getClass().getClassLoader())).isInstanceOf(IOException.class)
                .hasMessageContaining("reads format versions 1..3, but the checkpoint has version 4");
    }

    @Test
    void aDirectoryWithAnUnknownFormatTagIsCorrupt() throws IOException {
        BucketFilters directory = new BucketFilters();
        directory.put(20_002, whole(FingerprintScheme.withKeyBits(64), new FingerprintStoreSizing(10, 0.01, 3, 2), 0));
        byte[] bytes = bytes(BucketFiltersSerializer.INSTANCE, directory);
        bytes[4 + 8] = 9; // the tag after the count and the bucket id
        assertThatThrownBy(() -> BucketFiltersSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class).hasMessageContaining("bucket 20002 has format tag 9");
    }

    @Test
    void aDirectoryRoundTripsInBucketOrder() throws IOException {
        BucketFilters directory = new BucketFilters();
        directory.put(20_001, grownFilter());
        directory.put(19_999, ScalableBloomFilter.create(FingerprintScheme.withKeyBits(64), 10, 0.01, 1));

        BucketFilters read = roundTrip(BucketFiltersSerializer.INSTANCE, directory);

        assertThat(read).isEqualTo(directory);
        assertThat(read.bucketAt(0)).isEqualTo(19_999);
    }

    @Test
    void copiesAreDeep() {
        ScalableBloomFilter filter = grownFilter();
        ScalableBloomFilter copy = ScalableBloomFilterSerializer.INSTANCE.copy(filter);
        assertThat(copy).isEqualTo(filter).isNotSameAs(filter);
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {1L});
        assertThat(PageGroupSerializer.INSTANCE.copy(group)).isNotSameAs(group).isEqualTo(group);
    }

    @Test
    void aValueInAnUnknownFormatIsRejectedNotMisread() {
        byte[] bytes = {9, 0, 0, 0};
        assertThatThrownBy(() -> ScalableBloomFilterSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format 9");
    }

    @Test
    void aCorruptGroupIsRejected() {
        byte[] bytes = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        assertThatThrownBy(() -> PageGroupSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Corrupt");
    }

    @Test
    void groupsWhoseSubPagesDifferInLengthReadBackWordForWord() throws IOException {
        PageGroup growing = new PageGroup();
        growing.put(20_000, 0, new long[] {1, 2});
        growing.put(20_001, 0, new long[] {3, 4, 5, 6, 7}); // longer than the first: the array grows while read
        growing.put(20_001, 1, new long[] {8});
        assertThat(roundTrip(PageGroupSerializer.INSTANCE, growing).array()).containsExactly(growing.array());

        PageGroup shrinking = new PageGroup();
        shrinking.put(1, 0, new long[] {1, 2, 3});
        shrinking.put(2, 0, new long[] {4}); // shorter: the array is trimmed
        assertThat(roundTrip(PageGroupSerializer.INSTANCE, shrinking).array()).containsExactly(shrinking.array());
    }

    @Test
    void aGroupClaimingMoreThanItHoldsEndsAtItsBytesWithoutAllocatingTheClaim() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(4_096); // sub-pages, each claiming 65,536 words (2 GiB in all); one word follows
        out.writeLong(1);
        out.writeByte(0);
        out.writeInt(65_536);
        out.writeLong(7);
        assertThatThrownBy(() -> PageGroupSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                .isInstanceOf(IOException.class);
    }

    @Test
    void aGroupHoldingOneSubPageTwiceIsCorrupt() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(2);
        for (int i = 0; i < 2; i++) {
            out.writeLong(20_000);
            out.writeByte(0);
            out.writeInt(1);
            out.writeLong(i);
        }
        assertThatThrownBy(() -> PageGroupSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("sub-page of bucket 20000, layer 0 twice");
    }

    @Test
    void snapshotsRoundTripAndResolveAsCompatible() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, ScalableBloomFilterSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSnapshot<ScalableBloomFilter> read =
                TypeSerializerSnapshot.readVersionedSnapshot(new DataInputDeserializer(out.getCopyOfBuffer()), getClass().getClassLoader());

        assertThat(read.restoreSerializer()).isEqualTo(ScalableBloomFilterSerializer.INSTANCE);
        assertThat(ScalableBloomFilterSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(read).isCompatibleAsIs())
                .isTrue();
    }

    @Test
    void aSnapshotFromANewerReleaseFailsTheRestoreInsteadOfMisreading() {
        PageGroupSerializer.Snapshot snapshot = new PageGroupSerializer.Snapshot();
        assertThatThrownBy(() -> snapshot.readSnapshot(2, new DataInputDeserializer(new byte[0]), getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 2");
        ScalableBloomFilterSerializer.Snapshot filters = new ScalableBloomFilterSerializer.Snapshot();
        assertThatThrownBy(() -> filters.readSnapshot(3, new DataInputDeserializer(new byte[0]), getClass().getClassLoader()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void anotherSerializersSnapshotIsIncompatible() {
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializerSnapshot<PageGroup> other = (TypeSerializerSnapshot) new ScalableBloomFilterSerializer.Snapshot();
        assertThat(PageGroupSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(other).isIncompatible())
                .isTrue();
    }

    private static <T> byte[] bytes(TypeSerializer<T> serializer, T value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(value, out);
        return out.getCopyOfBuffer();
    }

    private static int serializedLength(ScalableBloomFilter filter) {
        try {
            DataOutputSerializer out = new DataOutputSerializer(64);
            ScalableBloomFilterSerializer.INSTANCE.serialize(filter, out);
            return out.length();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A bucket of one whole part holding {@code inserted} values in its bands. */
    static FingerprintBucket whole(FingerprintScheme scheme, FingerprintStoreSizing sizing, long inserted) {
        return new FingerprintBucket(List.of(new FingerprintPart(scheme, sizing, 0, 1, inserted, 0)));
    }
}
