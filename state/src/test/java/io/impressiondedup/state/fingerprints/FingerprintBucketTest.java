package io.impressiondedup.state.fingerprints;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.Insertion;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FingerprintBucketTest {

    private static final FingerprintStoreSizing SIZING = new FingerprintStoreSizing(10, 0.01, 3, 2);

    @Test
    void anInsertOpensTheNextBandExactlyWhenTheBucketHoldsItsPlanThenTwiceThenFourTimes() {
        FingerprintBucket bucket = new FingerprintBucket(FingerprintScheme.withKeyBits(64), SIZING, 0);
        List<Integer> grewAt = new ArrayList<>();
        for (int held = 0; held < 45; held++) {
            assertThat(bucket.nextBand()).as("band of the insert at %s held", held).isEqualTo(SIZING.bandFor(held));
            if (bucket.recordInsert() == Insertion.GREW) {
                grewAt.add(held);
            }
        }
        assertThat(grewAt).containsExactly(10, 20, 40);
        assertThat(bucket.inserted()).isEqualTo(45);
        assertThat(bucket.loadFactor()).isEqualTo(4.5);
    }

    @Test
    void insertsPastTheLastBandsCapacityOverFillAndTheEstimatedFppRisesLinearlyWithThem() {
        int maxBand = SIZING.maxBand();
        long lastBandEnd = 10L << maxBand;
        FingerprintBucket bucket = new FingerprintBucket(FingerprintScheme.withKeyBits(64), SIZING, lastBandEnd - 1);
        assertThat(bucket.recordInsert()).as("the last entry the last band is sized for").isNotEqualTo(Insertion.OVER_FILLED);
        assertThat(bucket.estimatedFpp()).isLessThan(0.01 / 3);
        assertThat(bucket.recordInsert()).as("one past it").isEqualTo(Insertion.OVER_FILLED);
        assertThat(bucket.nextBand()).isEqualTo(maxBand);
        // The last band's share of the budget is rho p / L 2^-maxBand: overloading it by its own size adds that share again.
        double atEnd = new FingerprintBucket(FingerprintScheme.withKeyBits(64), SIZING, lastBandEnd).estimatedFpp();
        double twiceTheLastBand = new FingerprintBucket(FingerprintScheme.withKeyBits(64), SIZING, lastBandEnd + (10L << (maxBand - 1)))
                .estimatedFpp();
        assertThat(twiceTheLastBand - atEnd).isCloseTo(0.1 * 0.01 / 3 * Math.scalb(1.0, -maxBand),
                org.assertj.core.data.Percentage.withPercentage(1));
    }

    @Test
    void aCopyIsEqualAndCountsOnItsOwn() {
        FingerprintBucket bucket = new FingerprintBucket(FingerprintScheme.withKeyBits(64), SIZING, 3);
        FingerprintBucket copy = bucket.copy();
        assertThat(copy).isEqualTo(bucket).isNotSameAs(bucket);
        copy.recordInsert();
        assertThat(bucket.inserted()).isEqualTo(3);
        assertThat(copy).isNotEqualTo(bucket);
    }
}
