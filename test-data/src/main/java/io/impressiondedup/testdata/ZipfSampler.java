package io.impressiondedup.testdata;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Ranks 1..n with probability proportional to 1 / rank^s: a few ads are everywhere, most are rare. */
final class ZipfSampler {

    private final double[] cumulative;

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
    }

    /** A rank in [1, n]. */
    int sample(SplittableRandom random) {
        int index = Arrays.binarySearch(cumulative, random.nextDouble());
        return (index >= 0 ? index : -index - 1) + 1;
    }
}
