package io.impressiondedup.state.bloom;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Bloom filter sizing: the classic formulas, and the correction that makes a blocked filter meet its
 * target FPP when measured.
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
 * <p><b>Blocked layout</b> (Putze, Sanders and Singler 2007, "Cache-, Hash- and Space-Efficient
 * Bloom Filters", section 3). All probes of an element fall into one B = 512-bit block, chosen
 * uniformly. The number of elements a block receives is Binomial(n, 1/blocks), close to Poisson with
 * mean {@code lambda = n / blocks}, and a block holding i elements answers a foreign query falsely
 * with probability {@code (1 - (1 - 1/B)^(k i))^k}. Hence
 *
 * <pre>
 *   FPP_blocked = sum over i >= 0 of  Poisson(lambda, i) * (1 - (1 - 1/B)^(k i))^k
 * </pre>
 *
 * Crowded blocks weigh more than empty ones relieve, so at the classic m and k the blocked FPP
 * exceeds p: 1.16 p at p = 1%, 1.6 p at 0.1%, 2.8 p at 0.01%. {@link #size} therefore searches, for each k, the smallest number of
 * blocks whose blocked FPP is at most p, and keeps the k that needs the fewest blocks. The result is
 * 3% more bits than classic at p = 1%, 8% at 0.1% and 14% at 0.01%. The formula assumes uniform,
 * independent probes inside the block, which {@link BloomBlock}'s probe derivation provides; tests
 * check the measured FPP against it. Poisson slightly over-states the spread of a binomial, so the
 * correction errs on the safe side.
 */
public final class BloomSizing {

    private static final double LN2 = Math.log(2);
    private static final double LN2_SQUARED = LN2 * LN2;
    private static final double LN_ONE_MINUS_ONE_OVER_B = Math.log1p(-1.0 / BloomBlock.BITS);

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

    /** FPP of a 512-bit-blocked filter after {@code insertions} elements (formula in the class comment). */
    public static double blockedFpp(long numBlocks, long insertions, int probes) {
        checkArgument(numBlocks > 0, "numBlocks must be positive, but was %s", numBlocks);
        if (insertions <= 0) {
            return 0.0;
        }
        double lambda = (double) insertions / numBlocks;
        double logLambda = Math.log(lambda);
        // Sum the Poisson terms over mean +- 12 standard deviations; the tail beyond is below 1e-30.
        int first = (int) Math.max(0, Math.floor(lambda - 12 * Math.sqrt(lambda) - 30));
        int last = (int) Math.ceil(lambda + 12 * Math.sqrt(lambda) + 30);
        double fpp = 0.0;
        for (int i = first; i <= last; i++) {
            double logPoisson = -lambda + i * logLambda - logFactorial(i);
            double blockFpp = Math.pow(-Math.expm1(probes * (double) i * LN_ONE_MINUS_ONE_OVER_B), probes);
            fpp += Math.exp(logPoisson) * blockFpp;
        }
        return Math.min(1.0, fpp);
    }

    /**
     * The smallest blocked geometry whose FPP after {@code expectedInsertions} elements is at most
     * {@code fpp}, over all probe counts.
     */
    public static BloomGeometry size(long expectedInsertions, double fpp, int blocksPerPage) {
        checkSizingArguments(expectedInsertions, fpp);
        long bestBlocks = Long.MAX_VALUE;
        int bestProbes = 1;
        for (int probes = 1; probes <= BloomBlock.MAX_PROBES; probes++) {
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

    private static double logFactorial(int i) {
        if (i < LOG_FACTORIALS.length) {
            return LOG_FACTORIALS[i];
        }
        // Stirling's series; at i >= 256 the error is below 1e-12.
        double x = i;
        return x * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI * x) + 1.0 / (12 * x) - 1.0 / (360 * x * x * x);
    }

    private static final double[] LOG_FACTORIALS = new double[256];

    static {
        for (int i = 1; i < LOG_FACTORIALS.length; i++) {
            LOG_FACTORIALS[i] = LOG_FACTORIALS[i - 1] + Math.log(i);
        }
    }

    private static void checkSizingArguments(long expectedInsertions, double fpp) {
        checkArgument(expectedInsertions > 0, "expectedInsertions must be positive, but was %s", expectedInsertions);
        checkArgument(fpp > 0.0 && fpp < 1.0, "fpp must be in (0, 1), but was %s", fpp);
    }
}
