package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.bloom.ScalableBloomFilter;
import org.junit.jupiter.api.Test;

class FalsePositiveBoundTest {

    private static final DedupPlan PLAN = DedupPlan.builder().capacityPerBucket(100_000).shards(16).fpp(0.01).build();

    @Test
    void theLimitIsTheChernoffQuantileAtOneInAMillion() {
        assertThat(FalsePositiveBound.limit(0, 1e-6)).isZero();
        assertThat(FalsePositiveBound.limit(1e-9, 1e-6)).isZero(); // P(S >= 1) <= e mu
        assertThat(FalsePositiveBound.limit(1, 1e-6)).isEqualTo(9);
        assertThat(FalsePositiveBound.limit(10, 1e-6)).isEqualTo(30);
        assertThat(FalsePositiveBound.limit(100, 1e-6)).isEqualTo(156);
    }

    @Test
    void theLimitIsNeverBelowTheExpectation() {
        for (double mu : new double[] {0.5, 3.7, 42, 1234.5}) {
            assertThat(FalsePositiveBound.limit(mu, 1e-6)).isGreaterThan((long) mu);
        }
        assertThatThrownBy(() -> FalsePositiveBound.limit(-1, 1e-6)).hasMessage("mu must not be negative, but was -1.0");
    }

    /** The promise restates the design; the plan's filters must keep it (they would not with a broken split). */
    @Test
    void thePlansFiltersAreSizedAsPromised() {
        FalsePositiveBound bound = new FalsePositiveBound(PLAN);
        assertThat(bound.promisedLayerGeometry(0)).isEqualTo(PLAN.firstLayerGeometry());
        for (int layer = 0; layer < 4; layer++) {
            assertThat(bound.promisedLayerGeometry(layer)).isEqualTo(
                    ScalableBloomFilter.layerGeometry(PLAN.capacityPerShard(), PLAN.bucketFpp(), PLAN.blocksPerPage(), layer));
        }
    }

    @Test
    void aFilterAtItsPlannedCapacityAnswersFalselyAtMostItsLayersFpp() {
        FalsePositiveBound bound = new FalsePositiveBound(PLAN);
        assertThat(bound.promisedFilterFpp(0)).isZero();
        assertThat(bound.promisedFilterFpp(PLAN.capacityPerShard())).isBetween(0.5 * bound.promisedLayerFpp(0), bound.promisedLayerFpp(0));
        assertThat(bound.promisedFilterFpp(PLAN.capacityPerShard() / 2)).isLessThan(bound.promisedLayerFpp(0) / 10);
        assertThat(bound.promisedFilterFpp(7 * PLAN.capacityPerShard())).isLessThanOrEqualTo(PLAN.fpp() / PLAN.bucketsChecked());
    }

    @Test
    void aStreamKnownByItsEventTimesIsBoundedOverTheShardSpread() {
        long day = 86_400_000L;
        long[] inserted = new long[60_000]; // 20,000 a day for three days: 1,250 per shard-day against a capacity of 6,250 + 4 sigma
        for (int i = 0; i < inserted.length; i++) {
            inserted[i] = 1_700_000_000_000L + (long) i * 3 * day / inserted.length;
        }
        FalsePositiveBound bound = new FalsePositiveBound(PLAN).addStream(inserted, new long[0]);
        assertThat(bound.expected()).isPositive().isLessThan(PLAN.fpp() * inserted.length);
        assertThat(bound.describe(3)).startsWith("3 false positives among 60,000 fresh keys; under the promised sizing");
    }
}
