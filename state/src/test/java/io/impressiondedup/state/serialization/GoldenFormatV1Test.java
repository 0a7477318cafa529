package io.impressiondedup.state.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.TestElements;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.HeapBloomPages;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Format v1 must read forever: the committed fixture was written by the first release, and every
 * build must read it, find every element it was built from (hashed by today's code, through the
 * geometry stored in the fixture), and write it back byte for byte. If this fails, a change broke
 * checkpoint compatibility: bump the format version and keep a reader for v1 instead. (Sizing may
 * change freely: existing filters keep the geometry stored with them.)
 */
class GoldenFormatV1Test {

    private static byte[] committedFixture() throws Exception {
        try (InputStream in = GoldenFormatV1Test.class.getResourceAsStream(GoldenFixture.RESOURCE)) {
            assertThat(in).as("committed fixture %s", GoldenFixture.RESOURCE).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void theCommittedSnapshotsAreVersionOneTheDirectoryMigratesAndThePagesAreCompatibleAsIs() throws Exception {
        GoldenFixture.Read read = GoldenFixture.read(committedFixture());

        assertThat(((VersionedSerializerSnapshot<?>) read.directorySnapshot).readVersion()).isEqualTo(1);
        assertThat(((VersionedSerializerSnapshot<?>) read.pageSnapshot).readVersion()).isEqualTo(1);
        // Directory format 2 adds the filters' ad-id flag: Flink reads v1 with the v1 serializer and rewrites it.
        assertThat(BucketFiltersSerializer.INSTANCE.snapshotConfiguration()
                        .resolveSchemaCompatibility(read.directorySnapshot)
                        .isCompatibleAfterMigration())
                .isTrue();
        assertThat(PageGroupSerializer.INSTANCE.snapshotConfiguration()
                        .resolveSchemaCompatibility(read.pageSnapshot)
                        .isCompatibleAsIs())
                .isTrue();
    }

    @Test
    void theCommittedMetadataReadsAsWritten() throws Exception {
        BucketFilters directory = GoldenFixture.read(committedFixture()).fixture.directory;

        assertThat(directory.size()).isEqualTo(2);
        ScalableBloomFilter first = (ScalableBloomFilter) directory.get(GoldenFixture.FIRST_BUCKET);
        assertThat(first.fingerprintScheme()).isEqualTo(GoldenFixture.SCHEME);
        assertThat(first.fingerprintScheme().adIdsKeyed()).as("format v1 knew only unkeyed ad ids").isFalse();
        assertThat(first.initialCapacity()).isEqualTo(300);
        assertThat(first.targetFpp()).isEqualTo(0.01);
        assertThat(first.blocksPerPage()).isEqualTo(2);
        assertThat(first.layers()).extracting(BloomLayer::capacity).containsExactly(300L, 600L);
        assertThat(first.layers().get(0).inserted()).isEqualTo(300);
        assertThat(first.inserted()).isBetween(495L, 500L); // false positives were not inserted
        assertThat(directory.get(GoldenFixture.SECOND_BUCKET).inserted()).isEqualTo(50);
    }

    @Test
    void everyElementTheFixtureWasBuiltFromIsStillFoundByTodaysHashing() throws Exception {
        GoldenFixture fixture = GoldenFixture.read(committedFixture()).fixture;

        assertAllFound(fixture, GoldenFixture.FIRST_BUCKET, GoldenFixture.FIRST_SEED, GoldenFixture.FIRST_BUCKET_ELEMENTS);
        assertAllFound(fixture, GoldenFixture.SECOND_BUCKET, GoldenFixture.SECOND_SEED, GoldenFixture.SECOND_BUCKET_ELEMENTS);
    }

    @Test
    void whatIsReadWritesBackByteForByte() throws Exception {
        GoldenFixture.Read read = GoldenFixture.read(committedFixture());
        assertThat(read.fixture.write()).isEqualTo(committedFixture());
    }

    private static void assertAllFound(GoldenFixture fixture, long bucket, long seed, int count) {
        HeapBloomPages pages = new HeapBloomPages();
        for (Map.Entry<Long, PageGroup> entry : fixture.pages.entrySet()) {
            PageGroup group = entry.getValue();
            for (int i = 0; i < group.size(); i++) {
                if (group.bucketAt(i) == bucket) {
                    pages.writePage(group.layerAt(i), PageAddress.page(entry.getKey()), group.pageAt(i));
                }
            }
        }
        ScalableBloomFilter filter = (ScalableBloomFilter) fixture.directory.get(bucket);
        TestElements elements = new TestElements(seed, GoldenFixture.SCHEME);
        for (int i = 0; i < count; i++) {
            long[] h = elements.next();
            assertThat(filter.mightContain(h[0], h[1], pages)).as("element %s of bucket %s", i, bucket).isTrue();
        }
    }

    /** Writes the fixture; run once with -Dgolden.write=true when a new format version is introduced. */
    @Test
    @EnabledIfSystemProperty(named = "golden.write", matches = "true")
    void writeFixture() throws Exception {
        Path target = Path.of("src/test/resources" + GoldenFixture.RESOURCE);
        Files.createDirectories(target.getParent());
        Files.write(target, GoldenFixture.build().write());
    }
}
