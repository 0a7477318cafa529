package io.impressiondedup.state.plan;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomBlock;
import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.BloomSizing;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.Serializable;
import java.util.Objects;

/**
 * From what a user knows (unique impressions per bucket, the FPP they accept, retention, shards) to
 * how every bucket filter is sized: the one sizing decision of the job, used by the operator to
 * create filters and by the {@code plan} command to print what that will cost.
 *
 * <p><b>FPP budget.</b> The configured FPP is end-to-end: the share of unique impressions wrongly
 * dropped. A record is checked against up to {@link TimeBuckets#maxBucketsChecked()} buckets (L = 5
 * with daily buckets and 2 days of retention), and is lost if any of them answers falsely, with
 * probability at most the sum of their FPPs. So each bucket's filter gets {@code p / L}, and inside
 * it the scalable filter's layer 0 gets half of that ({@link ScalableBloomFilter}). In steady state
 * most records meet three live buckets, so the measured rate sits well below p; the budget is what
 * keeps it below p in the worst case, including traffic over plan.
 *
 * <p><b>Capacity.</b> Request ids are spread over shards by their MD5 digest, so a shard receives a
 * binomial share of the bucket's impressions: mean {@code n/s}, standard deviation {@code sqrt(n/s
 * (1 - 1/s))}. Sizing each shard for the mean alone would make half of the shards overflow on a day
 * that is exactly on plan and grow a layer (measured: the end-to-end benchmark's on-plan day grew
 * layers in about half of its 128 shards). Each shard's filter is therefore sized for the mean plus
 * {@link #SHARD_SPREAD_SIGMAS} standard deviations: a shard overflows an on-plan day with
 * probability about 3e-5, for 3% more bits at 16k impressions per shard and 0.1% at 16M.
 *
 * <p><b>Shard state cap.</b> Growth keeps the FPP, but without a bound one shard could grow to 16
 * layers, 65,535x its plan: all ads of a request share a shard, so one request id with millions of ad
 * ids does it (that one bucket's filter then takes 197,000 times its first layer: 620 MB for a bucket
 * planned at 1,100 impressions and 3 KB). So a shard's Bloom state is capped
 * at {@link #shardStateCap()} times its planned state {@link #plannedBytesPerShard()} (the first layer
 * of each live bucket, B0 each); the growth layers of all its buckets share what the cap leaves above
 * the planned state ({@link #shardGrowthAllowanceBytes()}), and a filter that would go past it adds no
 * layer and over-fills instead: <b>that shard's FPP rises, its memory does not</b>. The cap is a
 * multiple rather than a size because the plan sets the scale: a shard planned at 15 KB and one planned
 * at 200 MB overflow by the same factors. The default, {@value #DEFAULT_SHARD_STATE_CAP}x, leaves 35 B0
 * for growth with 5 live buckets. A bucket's layers 1, 2 and 3 take 2.2, 4.8 and 10.5 B0 (twice the
 * elements of the layer before at half its FPP, so about 9% more bits per element), and hold 3x, 7x
 * and 15x the plan. So one bucket may run 15x over plan (17.5 B0 of growth) at the configured FPP, and
 * the four buckets a shard holds most of the day may each run 7x over plan at once (4 x 7.0 = 28 B0),
 * while legitimate traffic spreads evenly over the shards and stays far from the cap; the cost is
 * bounded at 8x the planned state of the shard under attack, 5.5% more than the whole planned state
 * at 128 shards. The next
 * step, 31x over plan in one bucket, needs 40.3 B0 and is refused.
 *
 * <p><b>State format.</b> {@link #stateFormat()} is the format new buckets are created in ({@code
 * --state-format}); the sizing above is the Bloom format's, the fingerprint format sizes its sections from the
 * same capacity, FPP and buckets checked ({@code FingerprintStoreSizing.forPlan}). Buckets already in state keep
 * the format and sizing they were created with.
 */
public final class DedupPlan implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final double DEFAULT_FPP = 0.001;
    /** 2 KiB pages: 32 blocks. See the operator's README for how the page size was chosen. */
    public static final int DEFAULT_PAGE_BYTES = 2048;
    /** Standard deviations of a shard's share of the traffic that its filter absorbs without growing. */
    public static final double SHARD_SPREAD_SIGMAS = 4.0;
    /** Default {@link #shardStateCap()}: one bucket 15x, or four buckets 7x, over plan still keep the FPP (class comment). */
    public static final double DEFAULT_SHARD_STATE_CAP = 8.0;

    private final long capacityPerBucket;
    private final double fpp;
    private final int shards;
    private final TimeBuckets timeBuckets;
    private final FingerprintScheme fingerprintScheme;
    private final int blocksPerPage;
    private final double shardStateCap;
    private final StateFormat stateFormat;

    private DedupPlan(Builder b) {
        this.capacityPerBucket = b.capacityPerBucket;
        this.fpp = b.fpp;
        this.shards = b.shards;
        this.timeBuckets = b.timeBuckets;
        this.fingerprintScheme = b.fingerprintScheme;
        this.blocksPerPage = b.pageBytes / (BloomBlock.BITS / Byte.SIZE);
        this.shardStateCap = b.shardStateCap;
        this.stateFormat = b.stateFormat;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** This plan with new filters of {@code scheme} (e.g. ad ids keyed once a secret is configured); all else the same. */
    public DedupPlan withFingerprintScheme(FingerprintScheme scheme) {
        return builder().capacityPerBucket(capacityPerBucket).fpp(fpp).shards(shards).timeBuckets(timeBuckets)
                .fingerprintScheme(scheme).pageBytes(pageBytes()).shardStateCap(shardStateCap).stateFormat(stateFormat).build();
    }

    /** This plan at end-to-end FPP {@code fpp}; all else the same. */
    public DedupPlan withFpp(double fpp) {
        return builder().capacityPerBucket(capacityPerBucket).fpp(fpp).shards(shards).timeBuckets(timeBuckets)
                .fingerprintScheme(fingerprintScheme).pageBytes(pageBytes()).shardStateCap(shardStateCap).stateFormat(stateFormat).build();
    }

    /** The format new buckets are created in. */
    public StateFormat stateFormat() {
        return stateFormat;
    }

    /** A new, empty Bloom filter for one shard's bucket (whatever {@link #stateFormat()} says). */
    public ScalableBloomFilter newBucketFilter() {
        return ScalableBloomFilter.create(fingerprintScheme, capacityPerShard(), bucketFpp(), blocksPerPage);
    }

    /** Unique impressions one shard's bucket filter is planned for: its expected share plus the spread. */
    public long capacityPerShard() {
        double share = 1.0 / shards;
        double deviation = Math.sqrt(capacityPerBucket * share * (1 - share));
        return expectedPerShard() + (long) Math.ceil(SHARD_SPREAD_SIGMAS * deviation);
    }

    /** A shard's expected share of the bucket's unique impressions, rounded up. */
    public long expectedPerShard() {
        return (capacityPerBucket + shards - 1) / shards;
    }

    /** Compound FPP of one bucket's filter: the end-to-end FPP over the buckets a record meets. */
    public double bucketFpp() {
        return fpp / bucketsChecked();
    }

    public int bucketsChecked() {
        return timeBuckets.maxBucketsChecked();
    }

    /** Geometry of the first layer of each bucket filter (what exists when traffic is on plan). */
    public BloomGeometry firstLayerGeometry() {
        return BloomSizing.size(capacityPerShard(), ScalableBloomFilter.layerFpp(bucketFpp(), 0), blocksPerPage);
    }

    /**
     * Buckets held at once: those within retention + allowed lateness behind the watermark (a bucket
     * lives until its end + retention + allowed lateness), the current one, and one ahead (records
     * ahead of the watermark by the out-of-orderness, around a boundary).
     */
    public int liveBuckets() {
        return liveBuckets(timeBuckets);
    }

    /** {@link #liveBuckets()} for other time buckets, e.g. without allowed lateness, to show what it costs. */
    public static int liveBuckets(TimeBuckets timeBuckets) {
        long bucket = timeBuckets.bucketSize().toMillis();
        long kept = timeBuckets.retention().toMillis() + timeBuckets.allowedLateness().toMillis();
        return (int) ((kept + bucket - 1) / bucket) + 2;
    }

    /** Bloom state of one shard on plan: the first layer of each of its {@link #liveBuckets()}. */
    public long plannedBytesPerShard() {
        return firstLayerGeometry().bytes() * liveBuckets();
    }

    /** The most Bloom state one shard may hold, as a multiple of {@link #plannedBytesPerShard()}. */
    public double shardStateCap() {
        return shardStateCap;
    }

    /** {@link #shardStateCap()} in bytes. */
    public long shardStateCapBytes() {
        return (long) Math.floor(Math.min(shardStateCap * plannedBytesPerShard(), (double) Long.MAX_VALUE));
    }

    /**
     * Bytes the growth layers of one shard's filters may take together: the cap less the first layers
     * of its live buckets, which exist whatever the traffic. Zero or less: filters never grow.
     */
    public long shardGrowthAllowanceBytes() {
        return shardStateCapBytes() - plannedBytesPerShard();
    }

    public long capacityPerBucket() {
        return capacityPerBucket;
    }

    public double fpp() {
        return fpp;
    }

    public int shards() {
        return shards;
    }

    public TimeBuckets timeBuckets() {
        return timeBuckets;
    }

    public FingerprintScheme fingerprintScheme() {
        return fingerprintScheme;
    }

    public int blocksPerPage() {
        return blocksPerPage;
    }

    public int pageBytes() {
        return blocksPerPage * BloomBlock.BITS / Byte.SIZE;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DedupPlan)) {
            return false;
        }
        DedupPlan that = (DedupPlan) o;
        return capacityPerBucket == that.capacityPerBucket
                && Double.compare(that.fpp, fpp) == 0
                && shards == that.shards
                && blocksPerPage == that.blocksPerPage
                && Double.compare(that.shardStateCap, shardStateCap) == 0
                && timeBuckets.equals(that.timeBuckets)
                && fingerprintScheme.equals(that.fingerprintScheme)
                && stateFormat == that.stateFormat;
    }

    @Override
    public int hashCode() {
        return Objects.hash(capacityPerBucket, fpp, shards, timeBuckets, fingerprintScheme, blocksPerPage, shardStateCap, stateFormat);
    }

    @Override
    public String toString() {
        return "DedupPlan{capacityPerBucket=" + capacityPerBucket + ", fpp=" + fpp + ", shards=" + shards + ", "
                + timeBuckets + ", " + fingerprintScheme + ", pageBytes=" + pageBytes() + ", shardStateCap=" + shardStateCap + ", stateFormat=" + stateFormat.optionValue() + '}';
    }

    /** Builder of {@link DedupPlan}; {@link #build()} validates. */
    public static final class Builder {
        private long capacityPerBucket = -1;
        private double fpp = DEFAULT_FPP;
        private int shards = 128;
        private TimeBuckets timeBuckets = TimeBuckets.defaults();
        private FingerprintScheme fingerprintScheme = FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS);
        private int pageBytes = DEFAULT_PAGE_BYTES;
        private double shardStateCap = DEFAULT_SHARD_STATE_CAP;
        private StateFormat stateFormat = StateFormat.BLOOM;

        /** Expected unique impressions per bucket over all shards (e.g. per day). */
        public Builder capacityPerBucket(long capacityPerBucket) {
            this.capacityPerBucket = capacityPerBucket;
            return this;
        }

        public Builder fpp(double fpp) {
            this.fpp = fpp;
            return this;
        }

        public Builder shards(int shards) {
            this.shards = shards;
            return this;
        }

        public Builder timeBuckets(TimeBuckets timeBuckets) {
            this.timeBuckets = timeBuckets;
            return this;
        }

        public Builder fingerprintScheme(FingerprintScheme fingerprintScheme) {
            this.fingerprintScheme = fingerprintScheme;
            return this;
        }

        public Builder pageBytes(int pageBytes) {
            this.pageBytes = pageBytes;
            return this;
        }

        /** The most Bloom state one shard may hold, as a multiple of its state on plan (see the class comment). */
        public Builder shardStateCap(double shardStateCap) {
            this.shardStateCap = shardStateCap;
            return this;
        }

        /** The format new buckets are created in (default {@link StateFormat#BLOOM}). */
        public Builder stateFormat(StateFormat stateFormat) {
            this.stateFormat = stateFormat;
            return this;
        }

        public DedupPlan build() {
            checkArgument(capacityPerBucket > 0, "capacity per bucket must be positive, but was %s", capacityPerBucket);
            checkArgument(fpp > 0 && fpp < 0.5, "fpp must be in (0, 0.5), but was %s", fpp);
            checkArgument(shards > 0, "shards must be positive, but was %s", shards);
            checkArgument(
                    pageBytes >= 64 && pageBytes <= 65536 && Integer.bitCount(pageBytes) == 1,
                    "page size must be a power of two between 64 and 65536 bytes, but was %s",
                    pageBytes);
            checkArgument(shardStateCap > 0, "the shard state cap must be a positive multiple of the planned state, but was %s",
                    shardStateCap);
            Objects.requireNonNull(timeBuckets, "timeBuckets");
            Objects.requireNonNull(fingerprintScheme, "fingerprintScheme");
            Objects.requireNonNull(stateFormat, "stateFormat");
            DedupPlan plan = new DedupPlan(this);
            plan.firstLayerGeometry(); // fails now, naming the limit, if a shard's filter cannot be addressed
            return plan;
        }
    }
}
