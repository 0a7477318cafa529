package io.impressiondedup.testdata.generate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ZipfSamplerTest {

    /** Inversion by binary search over the cumulative probabilities: the answer the guide table must give faster. */
    static int rankByBinarySearch(double[] cumulative, double u) {
        int index = Arrays.binarySearch(cumulative, u);
        return (index >= 0 ? index : -index - 1) + 1;
    }

    @ParameterizedTest
    @CsvSource({"1, 1.1", "2, 1.1", "5000, 1.1", "5000, 0.5", "1000, 2.5", "100000, 1.0"})
    void drawsTheSameRankAsInvertingTheCumulativeDistributionByBinarySearch(int n, double exponent) {
        ZipfSampler sampler = new ZipfSampler(n, exponent);
        double[] cumulative = sampler.cumulative;
        SplittableRandom sampling = new SplittableRandom(5);
        SplittableRandom reference = new SplittableRandom(5);
        for (int i = 0; i < 500_000; i++) {
            assertThat(sampler.sample(sampling)).isEqualTo(rankByBinarySearch(cumulative, reference.nextDouble()));
        }
    }
}
