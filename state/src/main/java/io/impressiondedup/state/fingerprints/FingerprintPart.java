package io.impressiondedup.state.fingerprints;

import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.identity.FingerprintScheme;
import java.util.Objects;

/**
 * The fingerprints of one shard-bucket that belong to one cell of the shard: cell {@code j} of {@code k} equal slices
 * of the shard's digest range ({@link #cellOf}). A bucket the job created is one part, the whole shard ({@code 0} of
 * {@code 1}); {@code dedup-tools reshape} to fewer shards makes each old shard a part of its parent, and to more
 * shards hands each child the parts it overlaps ({@link FingerprintReshape}), so a bucket may hold several.
 *
 * <p><b>What a part keeps.</b> Its fingerprint scheme and sizing (the ranges its sections were written with: parts
 * merged from shards that ran under different options keep their own), its count of distinct values in the bands
 * ({@link #inserted()}, which decides the band of the next insert, {@link FingerprintStoreSizing#bandFor}), and its
 * count in the overflow band ({@link #overflowed()}). Its sections live in the shard's pages at {@link #pageKey}: page
 * {@code p} of its sizing's P pages is page {@code j P + p} of {@code k P}, so parts of one bucket never share a page
 * (their cells are disjoint, and so are their index ranges within any one page count), while parts of different buckets
 * with the same page count and cell do, as the buckets of one plan always have.
 *
 * <p><b>Why a record meets only its part.</b> A record's page and values depend on its hash alone, the part it reads
 * on its cell: a part holds exactly the values inserted by records of its cell (or by the records of a wider cell it
 * was copied from), each lookup consults one section set sized for one shard of its plan, and so the FPP per lookup is
 * that of the part's own sizing and fill, whatever the shard count around it.
 *
 * <p><b>Inserts</b> ({@link #bandForInsert}): into the band {@link FingerprintStoreSizing#bandFor} names, unless that
 * band is not open yet and opening it would take the shard past its growth allowance (the shard state cap), or the
 * part has filled its last band: then into the overflow band (class comment of {@link FingerprintStoreSizing}). A part
 * held at a band's threshold by the cap tries again at each insert, so it grows as soon as the shard has room (a
 * bucket expired, or a larger cap after a restore). Mutable only through {@link #recordInsert}; not thread-safe.
 */
public final class FingerprintPart {

    private final FingerprintScheme fingerprintScheme;
    private final FingerprintStoreSizing sizing;
    private final int cellIndex;
    private final int cellCount;
    private long inserted;
    private long overflowed;

    /**
     * @param cellIndex j, in {@code [0, cellCount)}
     * @param cellCount k: the shard's digest range in k equal cells ({@code k P} pages must fit an int)
     * @param inserted distinct values in the bands
     * @param overflowed distinct values in the overflow band
     */
    public FingerprintPart(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing, int cellIndex, int cellCount, long inserted,
            long overflowed) {
        this.fingerprintScheme = Objects.requireNonNull(fingerprintScheme, "fingerprintScheme");
        this.sizing = Objects.requireNonNull(sizing, "sizing");
        if (cellCount < 1 || cellIndex < 0 || cellIndex >= cellCount || (long) cellCount * sizing.pages() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a part must be cell j in [0, k) of k >= 1 cells with k x " + sizing.pages()
                    + " pages in an int, but was cell " + cellIndex + " of " + cellCount);
        }
        if (inserted < 0 || overflowed < 0) {
            throw new IllegalArgumentException("counts must not be negative, but were " + inserted + " and " + overflowed);
        }
        this.cellIndex = cellIndex;
        this.cellCount = cellCount;
        this.inserted = inserted;
        this.overflowed = overflowed;
    }

    /** An empty part covering the whole shard: a bucket the job creates. */
    public static FingerprintPart whole(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing) {
        return new FingerprintPart(fingerprintScheme, sizing, 0, 1, 0, 0);
    }

    /**
     * A whole part's counts after {@code held} distinct values went in through {@link #bandForInsert} and {@link
     * #recordInsert}, with {@code growthAllowance} bytes for its growth bands (what the shard state cap leaves this
     * bucket): band by band while the next band's bytes fit, then, once a band cannot open or the last is full, the
     * overflow band for the rest. No sections: for forecasts ({@code StateFormatForecast}), which need the counts only.
     */
    public static FingerprintPart filledTo(FingerprintScheme fingerprintScheme, FingerprintStoreSizing sizing, long held,
            long growthAllowance) {
        if (held < 0) {
            throw new IllegalArgumentException("held must not be negative, but was " + held);
        }
        FingerprintPart part = whole(fingerprintScheme, sizing);
        long left = held;
        while (left > 0) {
            int band = part.bandForInsert(growthAllowance - part.growthBytes());
            if (band == FingerprintStoreSizing.OVERFLOW_BAND) {
                part.overflowed += left; // held at the threshold for good: no bucket expires within the forecast's day
                break;
            }
            long taken = Math.min(left, sizing.bandEnd(band) - part.inserted);
            part.inserted += taken;
            left -= taken;
        }
        return part;
    }

    /**
     * The FPP this part had when it held its first {@code held} distinct values ({@code <=} {@link #held()}), as {@link
     * #filledTo} fills it: the bands first, the overflow band after; {@link FingerprintStoreSizing#bucketFpp(long, long)}.
     */
    public double estimatedFppAfter(long held) {
        if (held < 0 || held > held()) {
            throw new IllegalArgumentException("held must be in [0, " + held() + "], but was " + held);
        }
        long inBands = Math.min(held, inserted);
        return sizing.bucketFpp(inBands, held - inBands);
    }

    /**
     * The cell, of {@code cellCount} equal cells of its shard under {@code shards} shards, of a record whose digest's
     * high word is {@code digestHigh}: {@code shardOf(d, shards k) mod k}, since {@code shardOf(d, shards k) / k} is its
     * shard ({@link FingerprintScheme#shardOf} takes the top 32 bits by multiply-shift).
     */
    public static int cellOf(long digestHigh, int shards, int cellCount) {
        if (cellCount == 1) {
            return 0;
        }
        long slots = (long) shards * cellCount;
        return (int) ((((digestHigh >>> 32) * slots) >>> 32) % cellCount);
    }

    /** Whether a record of shard count {@code shards} and digest {@code digestHigh} falls in this part's cell. */
    public boolean covers(long digestHigh, int shards) {
        return cellCount == 1 || cellOf(digestHigh, shards, cellCount) == cellIndex;
    }

    /** The state key of the page that holds a record's sections of this part, from its {@code h1}. */
    public long pageKey(long h1) {
        return pageKeyAt(sizing.pageOf(h1));
    }

    /** The state key of this part's page {@code page} ({@link FingerprintStoreSizing#pageOf}, below its page count). */
    public long pageKeyAt(int page) {
        int pages = sizing.pages();
        return FingerprintBucket.pageKey(cellCount * pages, cellIndex * pages + page);
    }

    /** Whether the page at {@code key} holds this part's sections (its page count and index range). */
    public boolean holdsPage(long key) {
        int pages = sizing.pages();
        int index = FingerprintBucket.pageIndexOf(key);
        return FingerprintBucket.pageCountOf(key) == cellCount * pages && index / pages == cellIndex;
    }

    /**
     * The band the next insert goes to: {@link FingerprintStoreSizing#bandFor}, or {@link FingerprintStoreSizing#OVERFLOW_BAND}
     * when the last band is full or when that band is still to open and its bytes ({@link
     * FingerprintStoreSizing#bandGrowthBytes}) exceed {@code shardGrowthLeft}, what the shard's growth allowance has
     * left ({@link #needsGrowthRoom()} says when the caller must compute it; any value otherwise).
     */
    public int bandForInsert(long shardGrowthLeft) {
        if (sizing.pastLastBand(inserted)) {
            return FingerprintStoreSizing.OVERFLOW_BAND;
        }
        int band = sizing.bandFor(inserted);
        if (sizing.opensBand(inserted) && sizing.bandGrowthBytes(band) > shardGrowthLeft) {
            return FingerprintStoreSizing.OVERFLOW_BAND;
        }
        return band;
    }

    /** Whether {@link #bandForInsert} needs the shard's growth room: the next insert would open a band. */
    public boolean needsGrowthRoom() {
        return sizing.opensBand(inserted);
    }

    /**
     * Counts an insert the caller has just written into {@code band}'s section ({@link #bandForInsert}): {@link
     * Insertion#GREW} when it opened a growth band, {@link Insertion#OVER_FILLED} into the overflow band.
     */
    public Insertion recordInsert(int band) {
        if (band == FingerprintStoreSizing.OVERFLOW_BAND) {
            overflowed++;
            return Insertion.OVER_FILLED;
        }
        boolean opened = sizing.opensBand(inserted);
        inserted++;
        return opened ? Insertion.GREW : Insertion.INSERTED;
    }

    public FingerprintScheme fingerprintScheme() {
        return fingerprintScheme;
    }

    public FingerprintStoreSizing sizing() {
        return sizing;
    }

    /** j: this part's cell among {@link #cellCount()}. */
    public int cellIndex() {
        return cellIndex;
    }

    /** k: the cells its shard is cut into for this part (1: the whole shard). */
    public int cellCount() {
        return cellCount;
    }

    /** Distinct values in the bands. */
    public long inserted() {
        return inserted;
    }

    /** Distinct values in the overflow band. */
    public long overflowed() {
        return overflowed;
    }

    /** Distinct values held, bands and overflow. */
    public long held() {
        return inserted + overflowed;
    }

    /** Values held over the part's planned capacity n0. */
    public double loadFactor() {
        return (double) held() / sizing.capacityPerShard();
    }

    /** The chance a fresh key of this part's cell matches it now ({@link FingerprintStoreSizing#bucketFpp(long, long)}). */
    public double estimatedFpp() {
        return sizing.bucketFpp(inserted, overflowed);
    }

    /** Bytes of its open growth bands, counted full ({@link FingerprintStoreSizing#growthBytes}): what the shard state cap bounds. */
    public long growthBytes() {
        return sizing.growthBytes(inserted);
    }

    /** The same values as cell {@code index} of {@code count} (after a reshape moved its pages there). */
    public FingerprintPart inCell(int index, int count) {
        return new FingerprintPart(fingerprintScheme, sizing, index, count, inserted, overflowed);
    }

    public FingerprintPart copy() {
        return inCell(cellIndex, cellCount);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FingerprintPart)) {
            return false;
        }
        FingerprintPart that = (FingerprintPart) o;
        return cellIndex == that.cellIndex && cellCount == that.cellCount && inserted == that.inserted && overflowed == that.overflowed
                && fingerprintScheme.equals(that.fingerprintScheme) && sizing.equals(that.sizing);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fingerprintScheme, sizing, cellIndex, cellCount, inserted, overflowed);
    }

    @Override
    public String toString() {
        return "FingerprintPart{cell " + cellIndex + "/" + cellCount + ", " + fingerprintScheme + ", " + sizing + ", inserted=" + inserted
                + (overflowed == 0 ? "" : ", overflowed=" + overflowed) + '}';
    }
}
