package io.impressiondedup.state.plan;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomLayer;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongToDoubleFunction;

/**
 * What one state format costs and drops when a plan's traffic runs below, at or over plan: the state per impression
 * and the genuine (unique) impressions wrongly dropped per day, expected from the sizing rules of the format. The
 * {@code plan} command prints it for both formats side by side ({@link CapacityReport}).
 *
 * <p><b>Why it matters.</b> Both formats keep the promise: a fresh key is dropped with probability at most p however
 * full the buckets it consults are. Below plan they differ. A Bloom filter's FPP falls as a steep power of its fill
 * ({@code fill^k} for a classic filter of k probes), a fingerprint bucket's only linearly ({@code c / U}), so a format
 * sized to the same p
 * drops very different numbers of genuine impressions on an ordinary day under plan; for billing each one is an
 * impression not paid for.
 *
 * <p><b>Notation.</b> C = {@code --capacity} (unique impressions per bucket on plan), s shards, R the retention, B the
 * bucket size, L = {@link TimeBuckets#maxBucketsChecked()}, p the FPP; f the fill, a bucket's unique impressions over
 * C; {@code n = f C / s}, the unique impressions of one shard-bucket at fill f.
 *
 * <p><b>The chance per bucket</b>, {@code F(x)}: the chance that a fresh key matches one shard-bucket holding x
 * entries, from the format's own sizing. Bloom: the scalable filter of the plan ({@link
 * DedupPlan#newBucketFilter()}'s capacity n0 and budget {@code p / L}) grown to x entries as it grows ({@link
 * ScalableBloomFilter#filledTo}, each bucket with its share of the shard state cap: the {@link
 * DedupPlan#liveBuckets()} - 1 buckets that hold data most of the day share {@link
 * DedupPlan#shardGrowthAllowanceBytes()} equally, as {@link CapacityReport#overPlanWithinCap} counts it), its
 * compound FPP at each fill on the way ({@link ScalableBloomFilter#estimatedFppAfter}); fingerprints: the bucket's
 * part filled band by band the same way ({@link FingerprintPart#filledTo}, under its share of {@link
 * FingerprintStoreSizing#shardGrowthAllowanceBytes}; past it the overflow band), {@link FingerprintStoreSizing#bucketFpp}
 * at each fill, {@code sum_i N_i / (P U_i)} over the bands and the overflow. Past either format's cap the forecast
 * counts every fresh key as inserted, where a filter that drops many inserts fewer: there it errs high.
 *
 * <p><b>The expected drops.</b> Traffic is steady: every bucket receives fC unique impressions spread evenly over its
 * time, in event-time order (the watermark follows the newest records). A fresh key at event time t, a fraction u into
 * its bucket b, consults the buckets {@code bucketOf(t - R) .. bucketOf(t + R)} (at most L: {@link TimeBuckets} rule
 * 2). Those before b hold their whole n (they are live: rule 4), b holds the {@code u n} inserted before the key, those
 * after b nothing (no record is ahead of the watermark). There are {@code b - bucketOf(t - R) = ceil(R/B - u)} before
 * b, R/B on average over u in [0, 1). A key is dropped if any bucket it consults matches; by the union bound, with
 * probability at most the sum of their F, which equals it to first order at these chances. Summed over the n fresh
 * keys of one shard-bucket, then over the shards and the buckets of a day:
 *
 * <pre>
 *   D_shard(f) = sum_(j &lt; n) F(j)  +  (R / B) n F(n)        own bucket filling up, plus the full buckets before it
 *   D_day(f)   = s D_shard(f) (1 d / B)
 * </pre>
 *
 * The first sum is evaluated exactly up to {@value #EXACT_SUM_LIMIT} entries per layer or band, and above by
 * Simpson's rule over each layer or band (F is smooth within one) plus the Euler-Maclaurin correction {@code -(F(end)
 * - F(start)) / 2}. Each shard is taken at the mean share n: its binomial spread raises a Bloom filter's {@code
 * fill^k} by a relative {@code k (k-1) / 2n}, under 1% above 8,000 impressions per shard-bucket, and leaves the linear
 * fingerprint term alone. Delayed clients shift a few keys to buckets further filled, which this steady state does not
 * count; the worst case, every consulted bucket full, stays bounded by p.
 *
 * <p><b>Why the formats part below plan.</b> For fingerprints below n0 {@code F(x) = x / n0 0.9 p / L} (band 0's
 * budget, {@link FingerprintStoreSizing}), so {@code sum_(j<n) F(j) = n F(n) / 2} and a bucket drops {@code (R/B +
 * 1/2) s n F(n)}: n and F(n) both linear in f, the drops grow as {@code f^2}. For a classic Bloom filter {@code F(x)}
 * is about {@code (x / n0)^k p / (2L)} (layer 0 sized for half the budget), the sum {@code n F(n) / (k + 1)}, and the
 * drops grow as {@code f^(k+1)}; the blocked layout's Poisson loads per block flatten that power (some blocks are
 * fuller than the mean), which {@link io.impressiondedup.state.bloom.BloomSizing#blockedFpp} counts exactly: in the
 * example below, from half the plan to the plan, 4 times the drops for fingerprints and 371 times for Bloom.
 *
 * <p><b>State per impression</b> ({@link #bytesPerImpression}): the bytes one shard-bucket holds at fill f over its n
 * impressions, without page keys or section headers (as {@link CapacityReport#bitsPerImpression()} counts them).
 * Bloom: the bits of the layers present ({@link ScalableBloomFilter#bytes()}), fixed per layer, so the bytes per
 * impression grow as 1/f below plan; fingerprints: {@link FingerprintStoreSizing#expectedBits} of the part, about {@code
 * log2(U_0 P / n) + 2} bits per entry, one bit more per halving of f. {@link #fingerprintFppAtBloomBytes} solves for
 * the FPP p' at which the fingerprint store takes, at plan, the bytes per impression a Bloom filter takes at p.
 *
 * <p><b>Worked example</b>: the defaults (R = 2 d, B = 1 d, L = 5, 128 shards) at p = 0.001 and C = 2 billion a
 * day: n = 15,625,000 per shard-bucket at plan, n0 = 15,640,750 with the shard spread. Bloom: layer 0 of 344,569,344
 * bits, k = 12 (22.05 bits per impression), F(n) = 9.93e-5 (just under the layer's {@code p / 2L = 1e-4} at n0); {@code
 * D = 128 (sum + 2 n F(n))} = 421,000 genuine impressions dropped a day at plan, 64,300 at 80%, 1,130 at 50%.
 * Fingerprints at p: U_0 / c = 5,561, 14.35 bits per impression, {@code F(n) = 0.9 p / 5 x n / n0} = 1.798e-4, so
 * {@code D = 128 x 2.5 n F(n)} = 899,000 a day at plan, 575,000 at 80%, 224,800 at 50%: 200 times Bloom's at half the
 * plan. Bloom's 22.05 bits buy the fingerprint store p' = 4.99e-6: 4,480 a day at plan, 2,870 at 80%, 1,120 at 50%.
 */
public final class StateFormatForecast {

    /** The fills the plan command prints: half, four fifths, exactly and twice the plan. */
    public static final double[] REPORTED_FILLS = {0.5, 0.8, 1.0, 2.0};
    /** Up to this many entries per layer or band the own-bucket sum is summed term by term. */
    static final int EXACT_SUM_LIMIT = 4096;
    /** Simpson intervals per layer or band above {@link #EXACT_SUM_LIMIT}. */
    private static final int SIMPSON_INTERVALS = 512;
    private static final double LOWEST_FPP = 1e-15;
    private static final double HIGHEST_FPP = 0.49;
    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

    private final DedupPlan plan;
    private final StateFormat format;
    /** The fingerprint sizing of the plan; null for the Bloom format. */
    private final FingerprintStoreSizing fingerprintSizing;

    public StateFormatForecast(DedupPlan plan, StateFormat format) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.format = Objects.requireNonNull(format, "format");
        this.fingerprintSizing = format == StateFormat.FINGERPRINTS ? FingerprintStoreSizing.forPlan(plan) : null;
    }

    public DedupPlan plan() {
        return plan;
    }

    public StateFormat format() {
        return format;
    }

    /** {@code n = f C / s}: the unique impressions of one shard-bucket at fill {@code fill}, rounded. */
    public long heldPerShard(double fill) {
        checkArgument(fill >= 0 && fill <= 1e6, "fill must be in [0, 1e6], but was %s", fill);
        return Math.round(fill * plan.capacityPerBucket() / plan.shards());
    }

    /** {@code R / B}: the full buckets before its own that a key consults, on average over its bucket. */
    public double fullBucketsBefore() {
        TimeBuckets buckets = plan.timeBuckets();
        return (double) buckets.retention().toMillis() / buckets.bucketSize().toMillis();
    }

    /** The bytes one shard-bucket holds at fill {@code fill} over its impressions (class comment); NaN at fill 0. */
    public double bytesPerImpression(double fill) {
        long held = heldPerShard(fill);
        if (held == 0) {
            return Double.NaN;
        }
        double bytes;
        if (format == StateFormat.FINGERPRINTS) {
            FingerprintPart part = fingerprintsFilledTo(held);
            bytes = fingerprintSizing.expectedBits(part.inserted(), part.overflowed()) / Byte.SIZE;
        } else {
            bytes = bloomFilledTo(held).bytes();
        }
        return bytes / held;
    }

    /** {@code D_shard} of the class comment times the shards: unique impressions dropped per bucket at fill {@code fill}. */
    public double droppedPerBucket(double fill) {
        long held = heldPerShard(fill);
        if (held == 0) {
            return 0;
        }
        LongToDoubleFunction chance;
        long[] segments;
        if (format == StateFormat.FINGERPRINTS) {
            FingerprintPart part = fingerprintsFilledTo(held);
            chance = part::estimatedFppAfter;
            long[] bands = fingerprintSizing.bandFills(part.inserted());
            segments = Arrays.copyOf(bands, bands.length + 1);
            segments[bands.length] = part.overflowed();
        } else {
            ScalableBloomFilter filter = bloomFilledTo(held);
            chance = filter::estimatedFppAfter;
            segments = filter.layers().stream().mapToLong(BloomLayer::inserted).toArray();
        }
        double ownBucket = sumBelow(chance, segments);
        double bucketsBefore = fullBucketsBefore() * held * chance.applyAsDouble(held);
        return plan.shards() * (ownBucket + bucketsBefore);
    }

    /** {@link #droppedPerBucket} over the buckets of a day ({@code 1 d / B}). */
    public double droppedPerDay(double fill) {
        return droppedPerBucket(fill) * DAY_MILLIS / plan.timeBuckets().bucketSize().toMillis();
    }

    /** F(x) of the class comment: the chance a fresh key matches one shard-bucket holding {@code held} entries. */
    public double bucketFpp(long held) {
        return format == StateFormat.FINGERPRINTS ? fingerprintsFilledTo(held).estimatedFpp() : bloomFilledTo(held).estimatedFpp();
    }

    /** The buckets that hold data most of the day, which share a shard's growth allowance: {@link DedupPlan#liveBuckets()} - 1. */
    private long bucketsHoldingData() {
        return Math.max(1, plan.liveBuckets() - 1);
    }

    /** A shard-bucket's Bloom filter of this plan after {@code held} inserts, with its share of the shard state cap. */
    private ScalableBloomFilter bloomFilledTo(long held) {
        return ScalableBloomFilter.filledTo(plan.fingerprintScheme(), plan.capacityPerShard(), plan.bucketFpp(),
                plan.blocksPerPage(), held, Math.max(0, plan.shardGrowthAllowanceBytes()) / bucketsHoldingData());
    }

    /** A shard-bucket's fingerprints of this plan after {@code held} inserts, with its share of the shard state cap. */
    private FingerprintPart fingerprintsFilledTo(long held) {
        long allowance = fingerprintSizing.shardGrowthAllowanceBytes(plan.shardStateCap(), plan.liveBuckets());
        return FingerprintPart.filledTo(plan.fingerprintScheme(), fingerprintSizing, held, Math.max(0, allowance) / bucketsHoldingData());
    }

    /**
     * {@code sum_(j < n) F(j)}, n the sum of {@code segments} (consecutive ranges of j over which F is smooth: layers or
     * bands): term by term in a segment of at most {@value #EXACT_SUM_LIMIT}, else Simpson's rule over it with the
     * Euler-Maclaurin correction.
     */
    static double sumBelow(LongToDoubleFunction chance, long[] segments) {
        double sum = 0;
        long start = 0;
        for (long length : segments) {
            if (length <= 0) {
                continue;
            }
            long end = start + length;
            if (length <= EXACT_SUM_LIMIT) {
                for (long j = start; j < end; j++) {
                    sum += chance.applyAsDouble(j);
                }
            } else {
                double step = (double) length / SIMPSON_INTERVALS;
                double weighted = chance.applyAsDouble(start) + chance.applyAsDouble(end);
                for (int i = 1; i < SIMPSON_INTERVALS; i++) {
                    weighted += (i % 2 == 1 ? 4 : 2) * chance.applyAsDouble(start + Math.round(i * step));
                }
                double integral = weighted * step / 3;
                sum += integral - (chance.applyAsDouble(end) - chance.applyAsDouble(start)) / 2;
            }
            start = end;
        }
        return sum;
    }

    /**
     * The FPP p' at which the fingerprint store of {@code plan} takes, at plan, the bytes per impression its Bloom
     * filters take at the plan's FPP: by bisection over log p' (the store's bytes fall as p' grows); a p' whose plan
     * cannot be built counts as too many bytes.
     */
    public static double fingerprintFppAtBloomBytes(DedupPlan plan) {
        double bloomBytes = new StateFormatForecast(plan, StateFormat.BLOOM).bytesPerImpression(1.0);
        double low = LOWEST_FPP;
        double high = HIGHEST_FPP;
        while (high / low > 1 + 1e-9) {
            double middle = Math.sqrt(low * high);
            if (fingerprintBytesAt(plan, middle) > bloomBytes) {
                low = middle;
            } else {
                high = middle;
            }
        }
        return high;
    }

    private static double fingerprintBytesAt(DedupPlan plan, double fpp) {
        try {
            return new StateFormatForecast(plan.withFpp(fpp), StateFormat.FINGERPRINTS).bytesPerImpression(1.0);
        } catch (IllegalArgumentException e) {
            return Double.POSITIVE_INFINITY; // a range past 2^48 or a Bloom layer past a page address: too small an FPP
        }
    }
}
