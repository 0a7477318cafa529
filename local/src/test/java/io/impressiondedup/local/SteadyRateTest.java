package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SteadyRateTest {

    @Test
    void theRateLeavesOutTheStartUpAndTheWaitForTheFinalCheckpoint() {
        SteadyRate rate = new SteadyRate(1_000_000);
        rate.add(10, 50_000); // start-up: below 10% of the input
        rate.add(13, 100_000); // the window opens here
        rate.add(16, 400_000);
        rate.add(19, 700_000); // the window closes here
        rate.add(25, 1_000_000); // all read; the final checkpoint follows

        assertThat(rate.recordsPerSecond()).hasValue(100_000.0);
        assertThat(rate.describeWindow()).isEqualTo("from 10% to 70% of the input, 6 s");
    }

    @Test
    void aRunTooShortForTwoSamplesInTheWindowHasNoSteadyRate() {
        SteadyRate rate = new SteadyRate(1_000);
        rate.add(5, 500);
        rate.add(8, 1_000);

        assertThat(rate.recordsPerSecond()).isEmpty();
        assertThat(rate.describeWindow()).startsWith("too few progress samples");
    }
}
