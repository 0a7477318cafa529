package io.impressiondedup.state.bloom;

import io.impressiondedup.state.identity.HashMixing;

/**
 * The state key of a {@link PageGroup}: a geometry slot and a page index, packed into a {@code long}.
 *
 * <pre>
 *   bits 39..24  geometry slot: 16 bits of a hash of (blocks, probes, blocks per page)
 *   bits 23..0   page index (0..2^24 - 1, see {@link BloomGeometry#MAX_PAGES})
 * </pre>
 *
 * <p>Every filter of a shard with one geometry, whatever its bucket or layer, puts a given element on
 * the same page index, so keying by (geometry, page) gathers exactly the sub-pages one record needs.
 * Two geometries hashing to one slot only share entries (sub-pages are told apart by their owner),
 * they are never confused. The slot is a pure function of the geometry, so nothing else has to be
 * stored to find a page again after a restore.
 *
 * <p><b>Binary format:</b> these keys are in every checkpoint. Never change the packing or the slot
 * hash without a new state format version.
 */
public final class PageAddress {

    public static final int MAX_LAYER = 255;

    private PageAddress() {}

    /** The 16-bit slot of a geometry. */
    public static int slotOf(BloomGeometry geometry) {
        long h = HashMixing.mix64(((long) geometry.numBlocks() << 32)
                ^ ((long) geometry.probes() << 16)
                ^ geometry.blocksPerPage());
        return (int) (h >>> 48);
    }

    /** Packs an address; called per record, so the check allocates nothing unless it fails. */
    public static long pack(int slot, int page) {
        if (page < 0 || page >= BloomGeometry.MAX_PAGES) {
            throw new IllegalArgumentException("page " + page + " out of [0, " + BloomGeometry.MAX_PAGES + ")");
        }
        return ((long) (slot & 0xFFFF) << 24) | page;
    }

    public static int slot(long address) {
        return (int) (address >>> 24) & 0xFFFF;
    }

    public static int page(long address) {
        return (int) address & 0xFFFFFF;
    }
}
