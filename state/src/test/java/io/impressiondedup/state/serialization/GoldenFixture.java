package io.impressiondedup.state.serialization;

import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.bloom.PageAddress;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.TestElements;
import io.impressiondedup.state.bloom.HeapBloomPages;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The golden state of format v1: two buckets of one shard, the first grown to two layers, with every
 * page in its page group, plus the serializer snapshots. Written once to {@code src/test/resources/golden/} and
 * committed; {@code GoldenFormatV1Test} proves every later build still reads it and still finds every
 * element in it.
 *
 * <p>Container (test-only): magic, then the versioned snapshots of the directory and page
 * serializers, the serialized directory, and the pages as (address, page) pairs.
 */
final class GoldenFixture {

    static final String RESOURCE = "/golden/dedup-state-v1.bin";
    static final byte[] MAGIC = "IMPRESSION-DEDUP-GOLDEN-2".getBytes(StandardCharsets.US_ASCII);

    static final long FIRST_BUCKET = 20_000;
    static final long SECOND_BUCKET = 20_001;
    static final int FIRST_BUCKET_ELEMENTS = 500;
    static final int SECOND_BUCKET_ELEMENTS = 50;
    static final long FIRST_SEED = 1234;
    static final long SECOND_SEED = 5678;
    static final FingerprintScheme SCHEME = FingerprintScheme.withKeyBits(64);

    final BucketFilters directory;
    final Map<Long, PageGroup> pages;

    GoldenFixture(BucketFilters directory, Map<Long, PageGroup> pages) {
        this.directory = directory;
        this.pages = pages;
    }

    /** Builds the fixture's content with the current code. */
    static GoldenFixture build() {
        BucketFilters directory = new BucketFilters();
        Map<Long, PageGroup> pages = new TreeMap<>();
        fill(directory, pages, FIRST_BUCKET, FIRST_SEED, FIRST_BUCKET_ELEMENTS);
        fill(directory, pages, SECOND_BUCKET, SECOND_SEED, SECOND_BUCKET_ELEMENTS);
        return new GoldenFixture(directory, pages);
    }

    private static void fill(BucketFilters directory, Map<Long, PageGroup> pages, long bucket, long seed, int count) {
        ScalableBloomFilter filter = ScalableBloomFilter.create(SCHEME, 300, 0.01, 2);
        HeapBloomPages heap = new HeapBloomPages();
        TestElements elements = new TestElements(seed, SCHEME);
        for (int i = 0; i < count; i++) {
            long[] h = elements.next();
            filter.putIfAbsent(h[0], h[1], heap);
        }
        directory.put(bucket, filter);
        for (int layer = 0; layer < filter.layerCount(); layer++) {
            int slot = PageAddress.slotOf(filter.layers().get(layer).geometry());
            for (int page = 0; page < filter.layers().get(layer).geometry().numPages(); page++) {
                long[] words = heap.readPage(layer, page);
                if (words != null) {
                    pages.computeIfAbsent(PageAddress.pack(slot, page), k -> new PageGroup()).put(bucket, layer, words);
                }
            }
        }
    }

    /**
     * The fixture in format v1, as the first release wrote it: the directory by a version-1 serializer, behind a
     * version-1 snapshot (the page format has only that version). The current format is pinned by the v1 bytes plus
     * {@code SerializerRoundTripTest}'s check of the one byte v2 adds.
     */
    byte[] write() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(4096);
        out.write(MAGIC);
        // Flink's writeVersionedSnapshot of the directory's snapshot as format 1 had it: class name, version, no body.
        out.writeUTF(BucketFiltersSerializer.Snapshot.class.getName());
        out.writeInt(1);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, PageGroupSerializer.INSTANCE.snapshotConfiguration());
        new BucketFiltersSerializer(1).serialize(directory, out);
        out.writeInt(pages.size());
        for (Map.Entry<Long, PageGroup> page : pages.entrySet()) {
            out.writeLong(page.getKey());
            PageGroupSerializer.INSTANCE.serialize(page.getValue(), out);
        }
        return out.getCopyOfBuffer();
    }

    /** What a reader gets back from a fixture file, with the serializers its snapshots restore. */
    static final class Read {
        TypeSerializerSnapshot<BucketFilters> directorySnapshot;
        TypeSerializerSnapshot<PageGroup> pageSnapshot;
        GoldenFixture fixture;
    }

    static Read read(byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        byte[] magic = new byte[MAGIC.length];
        in.readFully(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new IOException("not a golden fixture");
        }
        Read read = new Read();
        ClassLoader loader = GoldenFixture.class.getClassLoader();
        read.directorySnapshot = TypeSerializerSnapshot.readVersionedSnapshot(in, loader);
        read.pageSnapshot = TypeSerializerSnapshot.readVersionedSnapshot(in, loader);
        BucketFilters directory = read.directorySnapshot.restoreSerializer().deserialize(in);
        int pageCount = in.readInt();
        Map<Long, PageGroup> pages = new TreeMap<>();
        for (int i = 0; i < pageCount; i++) {
            long address = in.readLong();
            pages.put(address, read.pageSnapshot.restoreSerializer().deserialize(in));
        }
        if (in.available() != 0) {
            throw new IOException(in.available() + " unread bytes after the fixture");
        }
        read.fixture = new GoldenFixture(directory, pages);
        return read;
    }
}
