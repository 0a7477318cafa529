package io.impressiondedup.state.fingerprints;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.Locale;

/**
 * How a shard's fingerprint store is sized, and the FPP accounting that sizing keeps: the page of a record,
 * its value in each section, and the value range U of each band. The one place of these rules.
 *
 * <p><b>Inputs</b> (from the {@link DedupPlan}): {@code n0} = {@link DedupPlan#capacityPerShard()}, the
 * unique impressions one shard-bucket is planned for; the FPP {@code p}; {@code L} = {@link
 * TimeBuckets#maxBucketsChecked()}, the most buckets a lookup consults; {@code P}, the pages of a shard.
 *
 * <p><b>Mapping.</b> A record's page is its first probe hash {@code h1} scaled into {@code [0, P)}, its value
 * in a section of range U its second probe hash {@code h2} scaled into {@code [0, U)}, both by multiply-shift
 * ({@link #scale}: the high word of the unsigned 64 x 64-bit product, Lemire's "fastrange"), which is uniform
 * for any range, unlike a modulo by a power of two over a range that is not one.
 *
 * <p><b>Bands.</b> An entry inserted while its shard-bucket already holds {@code held} entries goes to band 0
 * if {@code held < n0}, else to band {@code i >= 1} with {@code 2^(i-1) n0 <= held < 2^i n0} ({@link
 * #bandFor}). So band 0 holds at most {@code n0} entries of the shard-bucket, and band i at most {@code
 * 2^(i-1) n0}. Every band of a bucket shares the page: growth costs no extra read.
 *
 * <p><b>The promise and its derivation.</b> A fresh key (no copy stored) consults at most L buckets, each in
 * all its bands. Its page is uniform over the P pages (h1 is independent of the stored keys), and in a section
 * of c distinct values its value is uniform over {@code [0, U)} (h2), so it matches that section with
 * probability exactly {@code c / U} (up to the multiply-shift's rounding, under {@code U / 2^64 <= 2^-16}
 * relative with {@link #MAX_VALUE_RANGE}). Averaged over the page, the chance it matches bucket b's band i is
 * {@code N_(b,i) / (P U_i)}, with {@code N_(b,i)} that band's entries over the whole shard: the mean per page
 * is exact for the expectation, so no slack per page is needed, however unevenly the pages fill. By the union
 * bound the chance that a fresh key is dropped is at most the sum over the consulted sections. With a reserve
 * {@code rho} = {@value #OVER_PLAN_RESERVE} of the budget kept for over-plan bands:
 *
 * <pre>
 *   band 0:      U_0 = ceil(L n0 / (P (1 - rho) p))               so N / (P U_0) <= (1 - rho) p / L
 *   band i >= 1: U_i = ceil(2^(2i-1) L n0 / (P rho p))            so 2^(i-1) n0 / (P U_i) <= rho p / L 2^-i
 *   one bucket:  (1 - rho) p / L + rho p / L (1/2 + 1/4 + ...)   <  p / L,   at plan and over plan
 *   a lookup:    at most L buckets                               <  p
 * </pre>
 *
 * Whatever buckets a record consults and however full they are, up to the last band. At plan a record that
 * meets k full buckets risks {@code 0.9 k p / L}; at 4x over plan each bucket risks {@code (0.9 + 0.05 +
 * 0.025) p / L}, so 0.975p for L of them. The design draft had {@code U_i = 4^i 9 U_0}, which gives band i
 * {@code rho p / L 2^-(i+1)}: also correct, but it spends only half the reserve and so one bit more per entry
 * in every band above 0. Here {@code U_i} is about {@code 4^i 4.5 U_0}.
 *
 * <p><b>Why n0 keeps the shard spread.</b> n0 is the plan's mean share plus 4 standard deviations. The
 * promise is per record, so it must hold in the fullest shard too, and the band of an insert is decided by
 * its shard-bucket's count: sized for the mean, half of the shards would move to band 1 on a day exactly on
 * plan and pay its {@code i + 3.17} more bits per entry. The slack costs {@code log2(n0 / mean)} bits per
 * entry in band 0: 0.1 bit at bench scale (3,350 against 3,127 per shard-day), 0.001 bit at production scale.
 *
 * <p><b>Cost.</b> A full band-0 section has {@code U_0 / c = L / ((1 - rho) p)}, whatever P is: 5,556 at p =
 * 0.001 and L = 5, so Elias-Fano's {@code log2(U/c) + 1.9 to 2} bits ({@link EliasFanoSection}) give about
 * 14.4 bits per entry, 14.5 against the mean share. Band i's entries take {@code i + 3.17} bits more.
 *
 * <p><b>Pages.</b> {@link #pagesPerShard} chooses P so that a page holds about {@value #DEFAULT_PAGE_BYTES}
 * bytes at the peak on plan: the live buckets but the one ahead of the watermark full ({@link
 * DedupPlan#liveBuckets()} - 1: by the watermark's rules, live data runs from 3 to 4 full days with the
 * defaults), at {@code log2(L / ((1 - rho) p)) + 2} bits per entry: 24 pages of 3,350 x 4 entries at bench
 * scale. 1 KB keeps a RocksDB key under 2% of its value and a re-encode of one section at a few hundred ns.
 * P is fixed when a shard's store is created.
 *
 * <p><b>Last band.</b> Bands stop at {@link #maxBand()}, the last whose U fits {@link #MAX_VALUE_RANGE} (at
 * most {@value #MAX_BAND}); inserts past it stay in it and the FPP rises linearly with the overload, as it
 * does past the shard state cap.
 */
public final class FingerprintStoreSizing implements ValueRanges {

    /** {@code rho}: the share of each bucket's FPP budget kept for its over-plan bands. */
    public static final double OVER_PLAN_RESERVE = 0.1;
    /** Bytes a page holds at the peak on plan (class comment). */
    public static final int DEFAULT_PAGE_BYTES = 1024;
    /** Bands 0..16: one band per doubling, as the Bloom format's 16 layers. */
    public static final int MAX_BAND = 16;
    /** The widest value range: keeps the multiply-shift's non-uniformity under 2^-16 relative. */
    public static final long MAX_VALUE_RANGE = 1L << 48;
    /** The band tag of a bucket's overflow sections (class comment), right above the last band any sizing has. */
    public static final int OVERFLOW_BAND = MAX_BAND + 1;
    /** Bytes each section of a band adds to its page beyond its values: its directory entry (3 words) and half a word of padding. */
    static final int SECTION_OVERHEAD_BYTES = 28;

    private final long capacityPerShard;
    private final double fpp;
    private final int bucketsChecked;
    private final int pages;
    private final long[] valueRanges;
    private final long overflowRange;
    /** {@code growthThrough[i]}: the bytes of bands 1..i full (0 for band 0). */
    private final long[] growthThrough;

    /** See the class comment for each input. */
    public FingerprintStoreSizing(long capacityPerShard, double fpp, int bucketsChecked, int pages) {
        checkArgument(capacityPerShard > 0, "capacity per shard must be positive, but was %s", capacityPerShard);
        checkArgument(fpp > 0 && fpp < 0.5, "fpp must be in (0, 0.5), but was %s", fpp);
        checkArgument(bucketsChecked > 0, "buckets checked must be positive, but was %s", bucketsChecked);
        checkArgument(pages > 0, "pages per shard must be positive, but was %s", pages);
        this.capacityPerShard = capacityPerShard;
        this.fpp = fpp;
        this.bucketsChecked = bucketsChecked;
        this.pages = pages;
        long[] ranges = new long[MAX_BAND + 1];
        int bands = 0;
        for (int band = 0; band <= MAX_BAND; band++) {
            double range = Math.ceil(bandEntries(band) * bucketsChecked / (pages * bandFpp(band)));
            if (!(range <= MAX_VALUE_RANGE)) {
                break;
            }
            ranges[band] = Math.max(1, (long) range);
            bands++;
        }
        checkArgument(bands > 0, "a store for %s impressions per shard-bucket in %s pages at fpp %s needs a value range"
                + " above 2^48; use more pages or a larger fpp", capacityPerShard, pages, fpp);
        this.valueRanges = java.util.Arrays.copyOf(ranges, bands);
        double overflow = Math.floor(capacityPerShard * bitsPerEntry(0) / (2.0 * pages));
        this.overflowRange = (long) Math.max(1, Math.min(overflow, EliasFanoSection.MAX_STREAM_BITS / 2 - Long.SIZE));
        this.growthThrough = new long[bands];
        for (int band = 1; band < bands; band++) {
            growthThrough[band] = Math.addExact(growthThrough[band - 1], fullBandBytes(band));
        }
    }

    /** The sizing of the plan's shards, with {@link #pagesPerShard} at {@value #DEFAULT_PAGE_BYTES} bytes. */
    public static FingerprintStoreSizing forPlan(DedupPlan plan) {
        int fullBuckets = Math.max(1, plan.liveBuckets() - 1);
        int pages = pagesPerShard(plan.capacityPerShard(), plan.fpp(), plan.bucketsChecked(), fullBuckets, DEFAULT_PAGE_BYTES);
        return new FingerprintStoreSizing(plan.capacityPerShard(), plan.fpp(), plan.bucketsChecked(), pages);
    }

    /**
     * Pages per shard so that {@code fullBuckets} full buckets fill a page to about {@code pageBytes}: {@code
     * ceil(fullBuckets n0 (log2(L / ((1 - rho) p)) + 2) / 8 / pageBytes)}.
     */
    public static int pagesPerShard(long capacityPerShard, double fpp, int bucketsChecked, int fullBuckets, int pageBytes) {
        checkArgument(fullBuckets > 0, "full buckets must be positive, but was %s", fullBuckets);
        checkArgument(pageBytes > 0, "page bytes must be positive, but was %s", pageBytes);
        double bitsPerEntry = log2(bucketsChecked / ((1 - OVER_PLAN_RESERVE) * fpp)) + 2;
        double pages = Math.ceil(fullBuckets * (double) capacityPerShard * bitsPerEntry / Byte.SIZE / pageBytes);
        checkArgument(pages <= Integer.MAX_VALUE, "%s pages of %s bytes do not fit an int; use larger pages", pages, pageBytes);
        return Math.max(1, (int) pages);
    }

    /** Most entries of one shard-bucket in {@code band}: {@code n0} for band 0, {@code 2^(band-1) n0} above. */
    private double bandEntries(int band) {
        return band == 0 ? capacityPerShard : Math.scalb((double) capacityPerShard, band - 1);
    }

    /** The share of {@code p / L} band {@code band} may use: {@code 1 - rho} for band 0, {@code rho 2^-band} above. */
    private double bandFpp(int band) {
        return band == 0 ? (1 - OVER_PLAN_RESERVE) * fpp : Math.scalb(OVER_PLAN_RESERVE * fpp, -band);
    }

    /** The band an insert goes to when its shard-bucket already holds {@code held} entries (class comment). */
    public int bandFor(long held) {
        checkArgument(held >= 0, "held must not be negative, but was %s", held);
        long doublings = held / capacityPerShard;
        int band = 64 - Long.numberOfLeadingZeros(doublings);
        return Math.min(band, maxBand());
    }

    /**
     * U of {@code band} ({@link #OVERFLOW_BAND}: {@link #overflowRange()}): the same for every bucket sized by this plan. On
     * every lookup, so its check does not box.
     */
    public long valueRange(int band) {
        if (band == OVERFLOW_BAND) {
            return overflowRange;
        }
        if (band < 0 || band > maxBand()) {
            throw new IllegalArgumentException("band must be in [0, " + maxBand() + "] or " + OVERFLOW_BAND + ", but was " + band);
        }
        return valueRanges[band];
    }

    /** {@code U_ov}, the value range of the overflow sections (class comment). */
    public long overflowRange() {
        return overflowRange;
    }

    @Override
    public long valueRange(long bucket, int band) {
        return valueRange(band);
    }

    /** The last band whose U fits {@link #MAX_VALUE_RANGE}. */
    public int maxBand() {
        return valueRanges.length - 1;
    }

    /** Whether an insert into a shard-bucket holding {@code held} entries is the first of a growth band (1 and up). */
    public boolean opensBand(long held) {
        int band = bandFor(held);
        return band > 0 && held == capacityPerShard << (band - 1) && held < lastBandEnd();
    }

    /** Whether a shard-bucket holding {@code held} entries has filled its last band: its next insert can only overflow. */
    public boolean pastLastBand(long held) {
        return held >= lastBandEnd();
    }

    /** Entries the bands hold at most: the last band's end, {@code 2^maxBand n0}. */
    private long lastBandEnd() {
        return bandEnd(maxBand());
    }

    /** Entries a shard-bucket holds when band {@code band} is full: {@code 2^band n0} (band 0 holds n0, band i {@code 2^(i-1) n0}). */
    public long bandEnd(int band) {
        checkArgument(band >= 0 && band <= maxBand(), "band must be in [0, %s], but was %s", maxBand(), band);
        return capacityPerShard << band;
    }

    /** Bits per entry of band {@code band} full: Elias-Fano's expected bits of its entries over the P pages ({@link #expectedBits}). */
    private double bitsPerEntry(int band) {
        double perPage = bandEntries(band) / pages;
        return EliasFanoSection.expectedBits(valueRanges[band], Math.min(perPage, valueRanges[band])) / perPage;
    }

    /** Bytes of band {@code band} of a shard-bucket when full (class comment, <i>Bytes</i>). */
    public long fullBandBytes(int band) {
        return (long) Math.ceil(bandEntries(band) * bitsPerEntry(band) / Byte.SIZE) + (long) pages * SECTION_OVERHEAD_BYTES;
    }

    /** A shard-bucket's planned state: band 0 full. */
    public long plannedBytes() {
        return fullBandBytes(0);
    }

    /**
     * The growth bytes a shard-bucket holding {@code held} entries has taken: every band above 0 that holds an entry,
     * counted full (a band's bytes are reserved when it opens, as a Bloom filter allocates a whole layer).
     */
    public long growthBytes(long held) {
        return held == 0 ? 0 : growthThrough[bandFor(held - 1)];
    }

    /** The growth bytes the first insert of band {@code band} would add: band {@code band} full. */
    public long bandGrowthBytes(int band) {
        return growthThrough[band] - growthThrough[band - 1];
    }

    /**
     * The growth bytes a shard of {@code liveBuckets} live buckets may take under a shard state cap of {@code cap} times
     * its planned state ({@code --shard-state-cap}): {@code (cap - 2) liveBuckets} {@link #plannedBytes()}, so that the
     * shard's whole fingerprint state, band 0 of each live bucket (one planned state), its growth bands and its overflow
     * sections (at most one planned state more), stays under {@code cap} times its plan. Negative when the cap is under 2:
     * then no band above 0 opens.
     */
    public long shardGrowthAllowanceBytes(double cap, int liveBuckets) {
        return (long) Math.floor(Math.min((cap - 2) * liveBuckets * (double) plannedBytes(), (double) Long.MAX_VALUE));
    }

    /** The page of a record: its {@code h1} scaled into {@code [0, P)}. */
    public int pageOf(long h1) {
        return (int) scale(h1, pages);
    }

    /** {@code hash} as an unsigned 64-bit fraction of {@code range}: {@code floor(hash_unsigned range / 2^64)}, in {@code [0, range)}. */
    public static long scale(long hash, long range) {
        return Math.multiplyHigh(hash, range) + ((hash >> 63) & range);
    }

    /**
     * The entries {@code N_i} of each band of a shard-bucket holding {@code held} entries, filled band by band as
     * {@link #bandFor} directs: band 0 up to n0, band i up to {@code 2^(i-1) n0}, the last band the rest.
     */
    public long[] bandFills(long held) {
        checkArgument(held >= 0, "held must not be negative, but was %s", held);
        long[] fills = new long[maxBand() + 1];
        long left = held;
        for (int band = 0; band <= maxBand() && left > 0; band++) {
            fills[band] = band == maxBand() ? left : Math.min(left, (long) bandEntries(band));
            left -= fills[band];
        }
        return fills;
    }

    /**
     * The chance that a fresh key matches one shard-bucket holding {@code held} entries in its bands ({@link
     * #bandFills}): {@code sum_i N_i / (P U_i)}. Below {@code p / L} up to the last band.
     */
    public double bucketFpp(long held) {
        return bucketFpp(held, 0);
    }

    /**
     * {@link #bucketFpp(long)} with {@code overflowed} distinct values in the bucket's overflow sections besides: their
     * {@code N_ov / (P U_ov)} added (class comment), at most 1 in all.
     */
    public double bucketFpp(long held, long overflowed) {
        checkArgument(overflowed >= 0, "overflowed must not be negative, but was %s", overflowed);
        long[] fills = bandFills(held);
        double chance = overflowed / ((double) pages * overflowRange);
        for (int band = 0; band < fills.length; band++) {
            chance += fills[band] / ((double) pages * valueRanges[band]);
        }
        return Math.min(1.0, chance);
    }

    /**
     * Expected bits of the sections of one shard-bucket holding {@code held} entries in its bands ({@link #bandFills})
     * and {@code overflowed} in its overflow sections: each band's {@code N_i} spread over the P pages, {@code P
     * EliasFanoSection.expectedBits(U_i, N_i / P)}, the overflow sections' at most {@code U_ov} values a page alike.
     * The sections' streams only: a section's header in a page (4-5 bytes serialized, about 2% of a 1 KB page) is not
     * counted, as a Bloom filter's bits are counted without the keys of its pages.
     */
    public double expectedBits(long held, long overflowed) {
        checkArgument(overflowed >= 0, "overflowed must not be negative, but was %s", overflowed);
        long[] fills = bandFills(held);
        double bits = pages * EliasFanoSection.expectedBits(overflowRange, Math.min(overflowRange, (double) overflowed / pages));
        for (int band = 0; band < fills.length; band++) {
            bits += pages * EliasFanoSection.expectedBits(valueRanges[band], (double) fills[band] / pages);
        }
        return bits;
    }

    public long capacityPerShard() {
        return capacityPerShard;
    }

    public double fpp() {
        return fpp;
    }

    public int bucketsChecked() {
        return bucketsChecked;
    }

    public int pages() {
        return pages;
    }

    private static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FingerprintStoreSizing)) {
            return false;
        }
        FingerprintStoreSizing that = (FingerprintStoreSizing) o;
        return capacityPerShard == that.capacityPerShard && Double.compare(fpp, that.fpp) == 0
                && bucketsChecked == that.bucketsChecked && pages == that.pages;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(capacityPerShard, fpp, bucketsChecked, pages);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "FingerprintStoreSizing{n0=%d, fpp=%s, bucketsChecked=%d, pages=%d, U0=%d, bands=%d, Uov=%d}",
                capacityPerShard, fpp, bucketsChecked, pages, valueRanges[0], valueRanges.length, overflowRange);
    }
}
