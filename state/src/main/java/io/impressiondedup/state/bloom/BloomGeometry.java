package io.impressiondedup.state.bloom;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.util.Objects;

/**
 * The layout of one blocked Bloom bitset: how many 512-bit blocks, how many probes, and how blocks
 * group into pages.
 *
 * <p><b>Pages.</b> A page is the unit in which a filter is stored in keyed state: a run of whole
 * blocks ({@link #blocksPerPage()}, a power of two) held as one {@code long[]}. An element lives in
 * exactly one block, so a lookup or insert touches exactly one page whatever the filter's size; a
 * page nobody wrote is all zeros and is simply absent. The last page may be shorter than the others.
 * Page indexes are limited to 24 bits ({@link #MAX_PAGES}) because a state key packs bucket, layer
 * and page into one long (see {@code PageAddress}).
 */
public final class BloomGeometry {

    public static final int MAX_PAGES = 1 << 24;

    private final int numBlocks;
    private final int probes;
    private final int blocksPerPage;
    private final int pageShift;

    public BloomGeometry(int numBlocks, int probes, int blocksPerPage) {
        checkArgument(numBlocks > 0, "numBlocks must be positive, but was %s", numBlocks);
        checkArgument(
                probes >= 1 && probes <= BloomBlock.MAX_PROBES,
                "probes must be in [1, %s], but was %s",
                BloomBlock.MAX_PROBES,
                probes);
        checkArgument(
                blocksPerPage > 0 && Integer.bitCount(blocksPerPage) == 1,
                "blocksPerPage must be a positive power of two, but was %s",
                blocksPerPage);
        this.numBlocks = numBlocks;
        this.probes = probes;
        this.blocksPerPage = blocksPerPage;
        this.pageShift = Integer.numberOfTrailingZeros(blocksPerPage);
        checkArgument(
                numPages() <= MAX_PAGES,
                "a filter of %s blocks needs %s pages of %s blocks, more than the %s a page address holds;"
                        + " use more shards or larger pages",
                numBlocks,
                numPages(),
                blocksPerPage,
                MAX_PAGES);
    }

    public int numBlocks() {
        return numBlocks;
    }

    public int probes() {
        return probes;
    }

    public int blocksPerPage() {
        return blocksPerPage;
    }

    public long bits() {
        return (long) numBlocks * BloomBlock.BITS;
    }

    public long bytes() {
        return bits() / Byte.SIZE;
    }

    public int numPages() {
        return (int) (((long) numBlocks + blocksPerPage - 1) >>> pageShift);
    }

    public int wordsPerFullPage() {
        return blocksPerPage * BloomBlock.WORDS;
    }

    /** Length of page {@code page}: a full page, except possibly the last. */
    public int wordsInPage(int page) {
        int blocks = Math.min(blocksPerPage, numBlocks - (page << pageShift));
        return blocks * BloomBlock.WORDS;
    }

    public int pageOf(int block) {
        return block >>> pageShift;
    }

    public int wordOffsetInPage(int block) {
        return (block & (blocksPerPage - 1)) * BloomBlock.WORDS;
    }

    /** Whether the element might be in this layer, reading at most one page from {@code pages}. */
    public boolean mightContain(BloomPageStore pages, int layer, long h1, long h2) {
        int block = BloomBlock.blockOf(h1, numBlocks);
        long[] words = pages.readPage(layer, pageOf(block));
        return words != null && BloomBlock.mightContain(words, pages.pageOffset() + wordOffsetInPage(block), h1, h2, probes);
    }

    /**
     * Sets the element's bits in this layer, creating its page if it does not exist yet.
     *
     * @return whether any bit changed
     */
    public boolean put(BloomPageStore pages, int layer, long h1, long h2) {
        int block = BloomBlock.blockOf(h1, numBlocks);
        int page = pageOf(block);
        long[] words = pages.readPage(layer, page);
        int pageOffset = 0;
        if (words == null) {
            words = new long[wordsInPage(page)];
        } else {
            pageOffset = pages.pageOffset();
        }
        boolean changed = BloomBlock.put(words, pageOffset + wordOffsetInPage(block), h1, h2, probes);
        if (changed) {
            pages.writePage(layer, page, words);
        }
        return changed;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BloomGeometry)) {
            return false;
        }
        BloomGeometry that = (BloomGeometry) o;
        return numBlocks == that.numBlocks && probes == that.probes && blocksPerPage == that.blocksPerPage;
    }

    @Override
    public int hashCode() {
        return Objects.hash(numBlocks, probes, blocksPerPage);
    }

    @Override
    public String toString() {
        return "BloomGeometry{blocks=" + numBlocks + ", probes=" + probes + ", blocksPerPage=" + blocksPerPage + '}';
    }
}
