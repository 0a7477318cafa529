package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BloomSizingTest {

    @Test
    void classicSizingMatchesPublishedValues() {
        // Guava's BloomFilter: optimalNumOfBits(1_000_000, 0.01) = 9_585_058, optimalNumOfHashFunctions = 7.
        double bits = BloomSizing.classicBits(1_000_000, 0.01);
        assertThat(bits).isCloseTo(9_585_058.4, within(0.05));
        assertThat((long) bits).isEqualTo(9_585_058L);
        assertThat(BloomSizing.classicProbes(bits, 1_000_000)).isEqualTo(7);
        assertThat(BloomSizing.classicBits(1_000_000, 0.001) / 1_000_000).isCloseTo(14.38, within(0.01));
        assertThat(BloomSizing.classicProbes(BloomSizing.classicBits(1_000_000, 0.001), 1_000_000)).isEqualTo(10);
    }

    @Test
    void classicFppAtClassicSizeIsTheTarget() {
        double bits = BloomSizing.classicBits(1_000_000, 0.01);
        assertThat(BloomSizing.classicFpp(bits, 1_000_000, 7)).isCloseTo(0.01, within(0.0005));
    }

    @Test
    void blockingAloneWouldMissTheTargetAtTheClassicSize() {
        long classicBlocks = (long) Math.ceil(BloomSizing.classicBits(1_000_000, 0.001) / BloomBlock.BITS);
        assertThat(BloomSizing.blockedFpp(classicBlocks, 1_000_000, 10)).isGreaterThan(0.0015);
    }

    @ParameterizedTest
    @CsvSource({"0.01, 1.00, 1.06", "0.001, 1.04, 1.10", "0.0001, 1.10, 1.18"})
    void blockedSizingMeetsTheTargetWithAFewPercentMoreBitsThanClassic(double fpp, double minRatio, double maxRatio) {
        long n = 1_000_000;
        BloomGeometry geometry = BloomSizing.size(n, fpp, 32);

        assertThat(BloomSizing.blockedFpp(geometry.numBlocks(), n, geometry.probes())).isLessThanOrEqualTo(fpp);
        assertThat(BloomSizing.blockedFpp(geometry.numBlocks() - 1, n, geometry.probes())).isGreaterThan(fpp);
        assertThat(geometry.bits() / BloomSizing.classicBits(n, fpp)).isBetween(minRatio, maxRatio);
    }

    @Test
    void blockedFppIsTheInclusionExclusionOverTheQuerysDistinctBits() {
        // k = 2: the two probes coincide with probability 1/512. c0 = 1, c1 = -(P1 + 2 P2), c2 = P2.
        double p1 = 1.0 / 512;
        double p2 = 511.0 / 512;
        double lambda = 40;
        double expected = 1
                - (p1 + 2 * p2) * Math.exp(-lambda * (1 - Math.pow(511.0 / 512, 2)))
                + p2 * Math.exp(-lambda * (1 - Math.pow(510.0 / 512, 2)));
        assertThat(BloomSizing.blockedFpp(1000, 40_000, 2)).isCloseTo(expected, within(1e-15));
    }

    @Test
    void blockedFppOfAnEmptyOrOneProbeFilterIsWhatItMustBe() {
        assertThat(BloomSizing.blockedFpp(1000, 0, 7)).isZero();
        // One probe: the chance its bit was hit by any of the block's Poisson(lambda) elements.
        assertThat(BloomSizing.blockedFpp(1000, 100_000, 1)).isCloseTo(-Math.expm1(-100 / 512.0), within(1e-12));
    }

    @Test
    void tinyFiltersStillMeetTheTarget() {
        BloomGeometry geometry = BloomSizing.size(10, 0.01, 1);
        assertThat(BloomSizing.blockedFpp(geometry.numBlocks(), 10, geometry.probes())).isLessThanOrEqualTo(0.01);
    }

    @Test
    void invalidArgumentsAreRejectedQuotingTheValue() {
        assertThatThrownBy(() -> BloomSizing.size(0, 0.01, 32)).hasMessageContaining("expectedInsertions").hasMessageContaining("0");
        assertThatThrownBy(() -> BloomSizing.size(100, 1.5, 32)).hasMessageContaining("fpp").hasMessageContaining("1.5");
        assertThatThrownBy(() -> BloomSizing.size(100, 0.01, 3)).hasMessageContaining("blocksPerPage").hasMessageContaining("3");
    }
}
