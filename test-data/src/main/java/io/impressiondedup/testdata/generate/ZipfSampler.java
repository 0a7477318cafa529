package io.impressiondedup.testdata.generate;

import java.util.SplittableRandom;

/**
 * Ranks 1..n with probability proportional to 1 / rank^s: a few ads are everywhere, most are rare.
 *
 * <p>Sampling inverts the cumulative distribution at a uniform draw u: the rank is the first whose
 * cumulative probability reaches u. A guide table (Chen and Asau) holds, for each of n equal slices
 * of [0, 1), the first rank that can answer a draw in that slice, so a draw searches a few entries
 * instead of a binary search over all n: the same answer, without its cache misses.
 */
final class ZipfSampler {

    /** cumulative[i]: probability of a rank up to i + 1; the last is 1. */
    final double[] cumulative;
    /** guide[j]: the first index i with cumulative[i] >= j / guide.length. */
    private final int[] guide;

    ZipfSampler(int n, double exponent) {
        cumulative = new double[n];
        double sum = 0;
        for (int rank = 1; rank <= n; rank++) {
            sum += 1.0 / Math.pow(rank, exponent);
            cumulative[rank - 1] = sum;
        }
        for (int i = 0; i < n; i++) {
            cumulative[i] /= sum;
        }
        guide = new int[n];
        int index = 0;
        for (int slice = 0; slice < n; slice++) {
            double sliceStart = (double) slice / n;
            while (index < n - 1 && cumulative[index] < sliceStart) {
                index++;
            }
            guide[slice] = index;
        }
    }

    /** A rank in [1, n]. */
    int sample(SplittableRandom random) {
        double u = random.nextDouble();
        int index = guide[(int) (u * guide.length)];
        while (index > 0 && cumulative[index - 1] >= u) { // only if u * n rounded up across a slice boundary
            index--;
        }
        while (index < cumulative.length - 1 && cumulative[index] < u) {
            index++;
        }
        return index + 1;
    }
}
