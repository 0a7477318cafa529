package io.impressiondedup.state.bloom;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Bloom filter sizing: the classic formulas, and the exact FPP of the blocked layout that makes a
 * blocked filter meet its target when measured.
 *
 * <p><b>Classic layout</b> (Bloom 1970; Broder and Mitzenmacher 2004). With m bits, k probes and n
 * elements the FPP is {@code (1 - e^(-kn/m))^k}, minimised by {@code k = (m/n) ln 2}, where it equals
 * {@code 2^-k}. Solving {@code 2^-((m/n) ln 2) = p} for m gives
 *
 * <pre>
 *   m = -n ln p / (ln 2)^2          k = round((m / n) ln 2)
 * </pre>
 *
 * For n = 1,000,000 and p = 0.01 that is m = 9,585,058.4 bits (Guava floors it to 9,585,058) and
 * k = 7, about 9.6 bits per element; at p = 0.001 it is 14.4 bits per element and k = 10.
 *
 * <p><b>Blocked layout.</b> All k probes of an element fall into one B = 512-bit block, chosen
 * uniformly; inside it each probe is a uniform bit, probes may coincide ({@link BloomBlock}). The
 * number of elements a block receives is Binomial(n, 1/blocks), close to Poisson with mean
 * {@code lambda = n / blocks} (Putze, Sanders and Singler 2007, "Cache-, Hash- and Space-Efficient
 * Bloom Filters", section 3). Their per-block term {@code (1 - (1 - 1/B)^(k i))^k} treats the query's
 * k probes as k independent checks; but with k = 9 in 512 bits two of them coincide 7% of the time,
 * and then one bit fewer must be set, so it under-states the FPP (by 2.2% at p = 0.001, which a
 * benchmark with 40M queries measured). The exact term, by inclusion-exclusion over the query's
 * distinct bits D (a block that has seen K probes has all d given bits set with probability
 * {@code sum_j (-1)^j C(d,j) (1 - j/B)^K}), averaged over the Poisson load with its generating
 * function, gives a closed form:
 *
 * <pre>
 *   FPP_blocked = sum over j = 0..k of  c_j * exp(-lambda (1 - (1 - j/B)^k)),
 *   c_j = (-1)^j * sum over d >= j of  P(D = d) C(d, j)
 * </pre>
 *
 * where P(D = d), the chance that k uniform probes hit d distinct bits, follows from the occupancy
 * recurrence. At the classic m and k the blocked FPP exceeds p (1.2 p at p = 1%, 1.6 p at 0.1%), so
 * {@link #size} searches, for each k, the smallest number of blocks whose exact blocked FPP is at most
 * p, and keeps the k that needs the fewest: 3.5% more bits than classic at p = 1%, 8% at 0.1%, 15%
 * at 0.01%. Poisson slightly over-states a binomial's spread, so the result errs on the safe side.
 */
public final class BloomSizing {

    private static final double LN2 = Math.log(2);
    private static final double LN2_SQUARED = LN2 * LN2;

    private BloomSizing() {}

    /** Classic optimal bit count {@code -n ln p / (ln 2)^2}, unrounded. */
    public static double classicBits(long expectedInsertions, double fpp) {
        checkSizingArguments(expectedInsertions, fpp);
        return -expectedInsertions * Math.log(fpp) / LN2_SQUARED;
    }

    /** Classic optimal probe count {@code round((m / n) ln 2)}, at least 1. */
    public static int classicProbes(double bits, long expectedInsertions) {
        checkArgument(expectedInsertions > 0, "expectedInsertions must be positive, but was %s", expectedInsertions);
        return Math.max(1, (int) Math.round(bits / expectedInsertions * LN2));
    }

    /** FPP of a classic (unblocked) filter of {@code bits} bits after {@code insertions} elements. */
    public static double classicFpp(double bits, long insertions, int probes) {
        return Math.pow(-Math.expm1(-probes * (double) insertions / bits), probes);
    }

    /** Exact FPP of a 512-bit-blocked filter after {@code insertions} elements (formula in the class comment). */
    public static double blockedFpp(long numBlocks, long insertions, int probes) {
        checkArgument(numBlocks > 0, "numBlocks must be positive, but was %s", numBlocks);
        checkArgument(probes >= 1 && probes <= BloomBlock.MAX_PROBES, "probes must be in [1, %s], but was %s",
                BloomBlock.MAX_PROBES, probes);
        if (insertions <= 0) {
            return 0.0;
        }
        double lambda = (double) insertions / numBlocks;
        double[] c = INCLUSION_EXCLUSION[probes];
        double fpp = 0.0;
        for (int j = 0; j <= probes; j++) {
            double missedByAllProbes = Math.exp(probes * Math.log1p(-(double) j / BloomBlock.BITS));
            fpp += c[j] * Math.exp(-lambda * (1.0 - missedByAllProbes));
        }
        return Math.max(0.0, Math.min(1.0, fpp));
    }

    /**
     * {@code c_j} of the class comment, per probe count k: {@code (-1)^j sum_d P(D = d) C(d, j)}, with
     * P(D = d) from the occupancy recurrence {@code P_k(d) = P_(k-1)(d) d/B + P_(k-1)(d-1) (B-d+1)/B}.
     */
    private static final double[][] INCLUSION_EXCLUSION = new double[BloomBlock.MAX_PROBES + 1][];

    static {
        double[] distinct = {1.0}; // P(D = d) after 0 probes
        for (int k = 1; k <= BloomBlock.MAX_PROBES; k++) {
            double[] next = new double[k + 1];
            for (int d = 1; d <= k; d++) {
                double stay = d < distinct.length ? distinct[d] * d / BloomBlock.BITS : 0.0;
                double grow = distinct[d - 1] * (BloomBlock.BITS - d + 1) / BloomBlock.BITS;
                next[d] = stay + grow;
            }
            distinct = next;
            double[] c = new double[k + 1];
            for (int j = 0; j <= k; j++) {
                double sum = 0.0;
                double binomial = 1.0; // C(j, j)
                for (int d = j; d <= k; d++) {
                    sum += distinct[d] * binomial;
                    binomial = binomial * (d + 1) / (d + 1 - j); // C(d+1, j)
                }
                c[j] = (j % 2 == 0 ? 1 : -1) * sum;
            }
            INCLUSION_EXCLUSION[k] = c;
        }
    }

    /**
     * Above this many probes the alternating sum of {@link #blockedFpp} loses precision (its largest
     * term grows like C(k, k/2)); no useful FPP needs more than 24 probes in a 512-bit block.
     */
    static final int MAX_SIZED_PROBES = 24;

    /**
     * The smallest blocked geometry whose FPP after {@code expectedInsertions} elements is at most
     * {@code fpp}, over all probe counts.
     */
    public static BloomGeometry size(long expectedInsertions, double fpp, int blocksPerPage) {
        checkSizingArguments(expectedInsertions, fpp);
        long bestBlocks = Long.MAX_VALUE;
        int bestProbes = 1;
        for (int probes = 1; probes <= MAX_SIZED_PROBES; probes++) {
            long blocks = minBlocks(expectedInsertions, fpp, probes);
            if (blocks < bestBlocks) {
                bestBlocks = blocks;
                bestProbes = probes;
            }
        }
        checkArgument(
                bestBlocks <= Integer.MAX_VALUE,
                "%s insertions at fpp %s need %s blocks, more than one filter can address; use more shards",
                expectedInsertions,
                fpp,
                bestBlocks);
        return new BloomGeometry((int) bestBlocks, bestProbes, blocksPerPage);
    }

    private static long minBlocks(long insertions, double fpp, int probes) {
        long high = Math.max(1, (long) Math.ceil(classicBits(insertions, fpp) / BloomBlock.BITS));
        while (blockedFpp(high, insertions, probes) > fpp) {
            high *= 2;
            if (high > (1L << 40)) {
                return Long.MAX_VALUE; // this probe count cannot reach fpp at all
            }
        }
        long low = 1;
        while (low < high) {
            long mid = (low + high) >>> 1;
            if (blockedFpp(mid, insertions, probes) <= fpp) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    private static void checkSizingArguments(long expectedInsertions, double fpp) {
        checkArgument(expectedInsertions > 0, "expectedInsertions must be positive, but was %s", expectedInsertions);
        checkArgument(fpp > 0.0 && fpp < 1.0, "fpp must be in (0, 1), but was %s", fpp);
    }
}
