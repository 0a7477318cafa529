package io.impressiondedup.state;

import io.impressiondedup.state.bloom.BloomGeometry;

/**
 * The state key of one Bloom page: bucket, layer and page packed into a {@code long}.
 *
 * <pre>
 *   bits 63..32  bucket id (signed 32-bit: days since 1970 for day buckets)
 *   bits 31..24  layer (0..255)
 *   bits 23..0   page index (0..2^24 - 1, see {@link BloomGeometry#MAX_PAGES})
 * </pre>
 *
 * <p>One {@code long} key keeps a page's RocksDB key at 8 bytes after the shard key, and since
 * Flink's {@code LongSerializer} writes big-endian, the pages of one bucket are contiguous in RocksDB's
 * key order (for non-negative bucket ids), so expiring a bucket deletes one key range.
 *
 * <p><b>Binary format:</b> these keys are in every checkpoint. Never change the packing without a
 * new state format version.
 */
public final class PageAddress {

    public static final int MAX_LAYER = 255;

    private PageAddress() {}

    /** Packs an address; called per record per bucket, so the checks allocate nothing unless they fail. */
    public static long pack(long bucket, int layer, int page) {
        if (bucket < Integer.MIN_VALUE || bucket > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("bucket id " + bucket + " does not fit the 32 bits of a page address");
        }
        if (layer < 0 || layer > MAX_LAYER) {
            throw new IllegalArgumentException("layer " + layer + " out of [0, " + MAX_LAYER + "]");
        }
        if (page < 0 || page >= BloomGeometry.MAX_PAGES) {
            throw new IllegalArgumentException("page " + page + " out of [0, " + BloomGeometry.MAX_PAGES + ")");
        }
        return (bucket << 32) | ((long) layer << 24) | page;
    }

    public static long bucket(long address) {
        return address >> 32;
    }

    public static int layer(long address) {
        return (int) (address >>> 24) & 0xFF;
    }

    public static int page(long address) {
        return (int) address & 0xFFFFFF;
    }
}
