package io.impressiondedup.state.plan;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.BloomSizing;
import io.impressiondedup.state.time.TimeBuckets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import java.util.function.LongToDoubleFunction;

/**
 * How many false positives a run may show: the expected count from the filters' fill, under the sizing
 * the design promises, and a tail bound on it. What the tests hold the observed count against; a bound
 * of the form "FPP x unique" cannot fail, because filters that are not full answer falsely far less
 * often than their FPP.
 *
 * <p><b>The promise.</b> A {@link DedupPlan} with FPP p, checking a record against up to L = {@link
 * TimeBuckets#maxBucketsChecked()} buckets, sizes each shard-bucket filter's layer i for {@code n0 2^i}
 * elements (n0 = {@link DedupPlan#capacityPerShard()}) at FPP {@code (p / L) 2^-(i+1)}: the split over
 * buckets ({@link DedupPlan}) and the halving per layer ({@code ScalableBloomFilter}). It is written here
 * again, from the design, on purpose: a bound that read the split from the code it checks would follow a
 * broken split, and the test would pass. The geometry of each layer is {@link BloomSizing#size}'s; the FPP
 * of a layer holding n elements is {@link BloomSizing#blockedFpp}; a filter that has received n elements
 * has filled its layers in order (layer 0 up to n0, then layer 1, ...), and its FPP is {@code 1 - prod(1 -
 * fpp_i)} over the layers.
 *
 * <p><b>The promise, fingerprint format.</b> A bucket in the fingerprint format ({@code FingerprintStoreSizing})
 * keeps {@code 1 - rho} of its share {@code p / L} for its first n0 entries and {@code rho 2^-i} for band i >= 1, which
 * holds the next {@code 2^(i-1) n0}; the chance a fresh key matches a bucket is at most the sum over its bands of the
 * entries held over the entries the band is sized for, times that band's budget ({@link
 * #promisedFingerprintBucketFpp}), with {@code rho = 0.1}. Written here from the design again, for the same reason.
 *
 * <p><b>Expectation.</b> A fresh key (no copy in any filter) is a false positive if any filter it is
 * checked against answers "maybe"; by the union bound, with probability at most the sum of those
 * filters' FPPs at their fill at that moment ({@link #addFreshKey}). Summed over the fresh keys of a run
 * this is an upper bound {@code mu} of the expected number of false positives. Where only the end result
 * of a run is known ({@link #addStream}), each fill is bounded as described there.
 *
 * <p><b>Tail.</b> The false positives are a sum of Bernoulli trials, one per fresh key, each with its
 * chance above; given the fills they are independent (a fresh key's hashes are independent of the bits
 * set by other keys). For a sum S of independent Bernoullis with {@code E[S] <= mu} and any {@code c >
 * mu}, the Chernoff bound (Mitzenmacher and Upfal, "Probability and Computing", theorem 4.4, in the
 * form {@code P(S >= (1+d) mu) <= (e^d / (1+d)^(1+d))^mu} with {@code c = (1+d) mu}) gives
 *
 * <pre>
 *   P(S >= c) <= e^-mu (e mu / c)^c
 * </pre>
 *
 * ({@link #limit(double, double)}: the smallest c with {@code P(S > c) <= }{@value #TAIL_PROBABILITY}). For
 * mu = 1 it is 9, for mu = 10 it is 30, for mu = 100 it is 156. A correct job exceeds the limit in one run
 * in a million; a job whose filters answer falsely twice as often as promised exceeds it as soon as mu is
 * a few tens.
 */
public final class FalsePositiveBound {

    /** The chance that a correct job exceeds {@link #limit()} in one run. */
    public static final double TAIL_PROBABILITY = 1e-6;

    private final DedupPlan plan;
    private final List<BloomGeometry> promisedLayers = new ArrayList<>();
    private final Map<Long, Double> filterFppByFill = new HashMap<>();
    private double expected;
    private long freshKeys;

    public FalsePositiveBound(DedupPlan plan) {
        this.plan = plan;
    }

    /** FPP of layer {@code layer} of a bucket filter as the design promises it: {@code (p / L) 2^-(layer+1)}. */
    public double promisedLayerFpp(int layer) {
        return plan.fpp() / plan.timeBuckets().maxBucketsChecked() * Math.pow(0.5, layer + 1);
    }

    /** FPP of one shard-bucket filter, sized as promised, after {@code inserted} elements (class comment). */
    public double promisedFilterFpp(long inserted) {
        checkArgument(inserted >= 0, "inserted must not be negative, but was %s", inserted);
        return filterFppByFill.computeIfAbsent(inserted, this::computeFilterFpp);
    }

    private double computeFilterFpp(long inserted) {
        double allNegative = 1.0;
        long left = inserted;
        for (int layer = 0; left > 0; layer++) {
            long capacity = plan.capacityPerShard() << layer;
            long held = Math.min(left, capacity);
            BloomGeometry geometry = promisedLayerGeometry(layer);
            allNegative *= 1.0 - BloomSizing.blockedFpp(geometry.numBlocks(), held, geometry.probes());
            left -= held;
        }
        return 1.0 - allNegative;
    }

    /**
     * The chance a fresh key matches one shard-bucket in the fingerprint format holding {@code held} entries, as the
     * design promises it (class comment): {@code sum_i (N_i / C_i) share_i}, with band 0 sized for {@code C_0 = n0} at
     * {@code 0.9 p / L} and band i for {@code 2^(i-1) n0} at {@code 0.1 2^-i p / L}.
     */
    public double promisedFingerprintBucketFpp(long held) {
        checkArgument(held >= 0, "held must not be negative, but was %s", held);
        double perBucket = plan.fpp() / plan.timeBuckets().maxBucketsChecked();
        long n0 = plan.capacityPerShard();
        double chance = Math.min(held, n0) / (double) n0 * 0.9 * perBucket;
        long left = held - Math.min(held, n0);
        for (int band = 1; left > 0; band++) {
            long sized = n0 << (band - 1);
            long inBand = band == 16 ? left : Math.min(left, sized); // the last band takes the rest
            chance += (double) inBand / sized * 0.1 * Math.scalb(perBucket, -band);
            left -= inBand;
        }
        return chance;
    }

    /**
     * A fresh key checked against filters holding {@code fills} elements each, at the moment of its check, each in the
     * format {@code formats} gives at the same position.
     */
    public FalsePositiveBound addFreshKey(long[] fills, StateFormat[] formats) {
        checkArgument(fills.length == formats.length, "%s fills for %s formats", fills.length, formats.length);
        double chance = 0;
        for (int i = 0; i < fills.length; i++) {
            chance += promisedChance(fills[i], formats[i]);
        }
        return addFreshKeyOfChance(chance);
    }

    /** The promised chance that a fresh key matches one shard-bucket of {@code format} holding {@code fill} elements. */
    public double promisedChance(long fill, StateFormat format) {
        return format == StateFormat.FINGERPRINTS ? promisedFingerprintBucketFpp(fill) : promisedFilterFpp(fill);
    }

    /**
     * A fresh key whose chance of a false positive, summed over what it was checked against, is {@code chance}: for a
     * run whose buckets were sized by more than one plan (a reshape), each summed with {@link #promisedChance} of its
     * own plan's bound.
     */
    public FalsePositiveBound addFreshKeyOfChance(double chance) {
        expected += Math.min(1.0, chance);
        freshKeys++;
        return this;
    }

    /** Geometry of layer {@code layer} of a bucket filter as the design promises it (class comment). */
    public BloomGeometry promisedLayerGeometry(int layer) {
        while (promisedLayers.size() <= layer) {
            int next = promisedLayers.size();
            promisedLayers.add(BloomSizing.size(plan.capacityPerShard() << next, promisedLayerFpp(next), plan.blocksPerPage()));
        }
        return promisedLayers.get(layer);
    }

    /** A fresh key checked against filters holding {@code fills} elements each, at the moment of its check. */
    public FalsePositiveBound addFreshKey(long... fills) {
        double chance = 0;
        for (long fill : fills) {
            chance += promisedFilterFpp(fill);
        }
        expected += Math.min(1.0, chance);
        freshKeys++;
        return this;
    }

    /**
     * A run known only by its end result: the event times of the impressions inserted (the unique ones) and of the
     * other fresh keys checked (late ones, inserted nowhere). Which shard an impression falls in is a uniform
     * draw (its digest), so a shard-bucket receives a Binomial(N, 1/shards) share X of the N impressions of its
     * bucket, and the expectation is taken over it:
     *
     * <ul>
     *   <li>the X impressions inserted into a shard-bucket were checked against it at fills 0, 1, ..., X - 1,
     *       whatever their order: {@code sum_(j<X) F(j)};
     *   <li>against any other bucket in its range ({@link TimeBuckets#firstBucketToCheck} to {@link
     *       TimeBuckets#lastBucketToCheck}), and a late key against every bucket in its range, a key met a
     *       fill of at most that filter's final one: {@code F(X')} (filters only fill up).
     * </ul>
     *
     * The second is an over-estimate where a record met a bucket before it filled (the next day's), which
     * the order of a parallel run does not tell; the bound errs on the safe side.
     */
    public FalsePositiveBound addStream(long[] insertedEventTimes, long[] otherFreshEventTimes) {
        return addStream(insertedEventTimes, otherFreshEventTimes, bucket -> StateFormat.BLOOM);
    }

    /**
     * {@link #addStream(long[], long[])} for a run whose buckets are in the format {@code formatOfBucket} gives (a
     * run across a change of {@code --state-format}: each bucket in the format it was created in).
     */
    public FalsePositiveBound addStream(long[] insertedEventTimes, long[] otherFreshEventTimes, LongFunction<StateFormat> formatOfBucket) {
        TimeBuckets buckets = plan.timeBuckets().copy();
        TreeMap<Long, Long> perBucket = new TreeMap<>();
        for (long time : insertedEventTimes) {
            perBucket.merge(buckets.bucketOf(time), 1L, Long::sum);
        }
        Map<Long, Double> finalFpp = new HashMap<>();
        perBucket.forEach((bucket, n) -> {
            LongToDoubleFunction fpp = formatOfBucket.apply(bucket) == StateFormat.FINGERPRINTS
                    ? this::promisedFingerprintBucketFpp : this::promisedFilterFpp;
            finalFpp.put(bucket, overShares(n, fpp));
            expected += plan.shards() * overShares(n, x -> ownChecks(x, fpp));
        });
        for (long time : insertedEventTimes) {
            addOtherBuckets(buckets, perBucket, finalFpp, time, buckets.bucketOf(time));
        }
        for (long time : otherFreshEventTimes) {
            addOtherBuckets(buckets, perBucket, finalFpp, time, Long.MIN_VALUE);
        }
        freshKeys += insertedEventTimes.length + otherFreshEventTimes.length;
        return this;
    }

    private void addOtherBuckets(TimeBuckets buckets, TreeMap<Long, Long> perBucket, Map<Long, Double> finalFpp, long time,
            long own) {
        for (long bucket : perBucket.subMap(buckets.firstBucketToCheck(time), true, buckets.lastBucketToCheck(time), true).keySet()) {
            if (bucket != own) {
                expected += finalFpp.get(bucket);
            }
        }
    }

    /** {@code sum_(j < x) F(j)}: the own-bucket checks of the x impressions inserted into one filter of chance {@code fpp}. */
    private static double ownChecks(long x, LongToDoubleFunction fpp) {
        double sum = 0;
        for (long j = 0; j < x; j++) {
            sum += fpp.applyAsDouble(j);
        }
        return sum;
    }

    /** {@code E[g(X)]}, X ~ Binomial(n, 1/shards): summed outward from the mode until the terms vanish. */
    private double overShares(long n, LongToDoubleFunction g) {
        int shards = plan.shards();
        if (shards == 1) {
            return g.applyAsDouble(n);
        }
        double q = 1.0 / shards;
        double odds = q / (1 - q);
        long mode = Math.min(n, (long) Math.floor((n + 1) * q));
        double weightSum = 1.0;
        double sum = g.applyAsDouble(mode);
        double weight = 1.0;
        for (long k = mode; k < n && weight > 1e-15; k++) { // P(k+1) / P(k) = (n - k) / (k + 1) * q / (1 - q)
            weight *= (double) (n - k) / (k + 1) * odds;
            weightSum += weight;
            sum += weight * g.applyAsDouble(k + 1);
        }
        weight = 1.0;
        for (long k = mode; k > 0 && weight > 1e-15; k--) {
            weight *= (double) k / (n - k + 1) / odds;
            weightSum += weight;
            sum += weight * g.applyAsDouble(k - 1);
        }
        return sum / weightSum;
    }

    /** The bound on the expected number of false positives, {@code mu}. */
    public double expected() {
        return expected;
    }

    /** The most false positives a correct job shows but with probability {@value #TAIL_PROBABILITY}. */
    public long limit() {
        return limit(expected, TAIL_PROBABILITY);
    }

    /**
     * The smallest c with {@code e^-mu (e mu / (c+1))^(c+1) <= tail}: by the Chernoff bound (class comment),
     * {@code P(S > c) <= tail} for a sum S of independent Bernoullis with mean at most {@code mu}.
     */
    public static long limit(double mu, double tail) {
        checkArgument(mu >= 0, "mu must not be negative, but was %s", mu);
        checkArgument(tail > 0 && tail < 1, "tail must be in (0, 1), but was %s", tail);
        if (mu == 0) {
            return 0;
        }
        double logTail = Math.log(tail);
        long c = (long) Math.floor(mu); // the bound holds for c + 1 > mu
        while (-mu + (c + 1) * (1 + Math.log(mu) - Math.log(c + 1)) > logTail) {
            c++;
        }
        return c;
    }

    /** One line for an assertion's message: the observed count against the expectation and the limit. */
    public String describe(long observed) {
        return String.format(Locale.ROOT, "%,d false positives among %,d fresh keys; under the promised sizing (%s) at most %.2f"
                        + " expected, %d allowed (P = %s of more)", observed, freshKeys, plan, expected, limit(), TAIL_PROBABILITY);
    }
}
