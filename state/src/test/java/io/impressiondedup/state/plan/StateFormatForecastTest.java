package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import org.junit.jupiter.api.Test;

/**
 * The forecast against the promise {@link FalsePositiveBound} restates from the design: the same expected drops summed
 * term by term, {@code s (sum_(j<n) F(j) + (R/B) n F(n))}, below, at and over plan.
 */
class StateFormatForecastTest {

    /** n = 3,000 per shard-bucket at plan: the own-bucket sum is taken term by term. */
    private static final DedupPlan SMALL = DedupPlan.builder().capacityPerBucket(128 * 3_000).shards(128).build();
    /** n = 40,000 per shard-bucket at plan: the own-bucket sum is Simpson's rule. */
    private static final DedupPlan LARGE = DedupPlan.builder().capacityPerBucket(128 * 40_000).shards(128).build();

    /** The class comment's sum, term by term, with the design's chance per bucket. */
    private static double promisedDropsPerBucket(DedupPlan plan, StateFormat format, double fill) {
        FalsePositiveBound promise = new FalsePositiveBound(plan);
        long n = Math.round(fill * plan.capacityPerBucket() / plan.shards());
        double ownBucket = 0;
        for (long j = 0; j < n; j++) {
            ownBucket += promise.promisedChance(j, format);
        }
        return plan.shards() * (ownBucket + 2 * n * promise.promisedChance(n, format)); // R / B = 2 days / 1 day
    }

    private static void assertAsPromised(DedupPlan plan, StateFormat format, double fill, double relativeError) {
        double forecast = new StateFormatForecast(plan, format).droppedPerBucket(fill);
        double promised = promisedDropsPerBucket(plan, format, fill);
        assertThat(forecast).as("%s at %s of %s", format, fill, plan).isCloseTo(promised, withinPercentage(100 * relativeError));
    }

    @Test
    void anEmptyDayDropsNothingAndHasNoStatePerImpression() {
        for (StateFormat format : StateFormat.values()) {
            StateFormatForecast forecast = new StateFormatForecast(SMALL, format);
            assertThat(forecast.droppedPerBucket(0)).isZero();
            assertThat(forecast.droppedPerDay(0)).isZero();
            assertThat(forecast.bytesPerImpression(0)).isNaN();
            assertThat(forecast.bucketFpp(0)).isZero();
        }
    }

    @Test
    void belowAndExactlyAtPlanTheDropsAreThePromisedChancesSummedOverTheDay() {
        for (StateFormat format : StateFormat.values()) {
            for (double fill : new double[] {0.5, 1.0}) {
                assertAsPromised(SMALL, format, fill, 1e-4);
                assertAsPromised(LARGE, format, fill, 1e-3);
            }
        }
    }

    @Test
    void overPlanTheNextLayerOrBandOpensAndTheDropsStillFollowThePromise() {
        for (StateFormat format : StateFormat.values()) {
            assertAsPromised(SMALL, format, 2.0, 1e-4);
            assertAsPromised(LARGE, format, 2.0, 1e-3);
        }
        long n = new StateFormatForecast(LARGE, StateFormat.BLOOM).heldPerShard(2.0);
        assertThat(n).isGreaterThan(LARGE.capacityPerShard());
        ScalableBloomFilter atTwice = ScalableBloomFilter.filledTo(LARGE.fingerprintScheme(), LARGE.capacityPerShard(), LARGE.bucketFpp(),
                LARGE.blocksPerPage(), n, Long.MAX_VALUE);
        assertThat(atTwice.layerCount()).isEqualTo(2);
        assertThat(new StateFormatForecast(LARGE, StateFormat.BLOOM).bytesPerImpression(2.0)).isEqualTo((double) atTwice.bytes() / n);
        // Over plan both still drop under p of the day's fresh keys.
        for (StateFormat format : StateFormat.values()) {
            assertThat(new StateFormatForecast(LARGE, format).droppedPerBucket(2.0)).isLessThan(LARGE.fpp() * 2 * LARGE.capacityPerBucket());
        }
    }

    @Test
    void pastTheShardStateCapTheBloomFilterOverFillsAndDropsMore() {
        DedupPlan capped = DedupPlan.builder().capacityPerBucket(128 * 40_000).shards(128).shardStateCap(1).build();
        StateFormatForecast cappedForecast = new StateFormatForecast(capped, StateFormat.BLOOM);
        StateFormatForecast grown = new StateFormatForecast(LARGE, StateFormat.BLOOM);
        assertThat(cappedForecast.bytesPerImpression(2.0)).as("no growth layer").isCloseTo(grown.bytesPerImpression(1.0) / 2, withinPercentage(1e-9));
        assertThat(cappedForecast.bucketFpp(cappedForecast.heldPerShard(2.0))).isGreaterThan(capped.bucketFpp());
        assertThat(cappedForecast.droppedPerBucket(2.0)).isGreaterThan(10 * grown.droppedPerBucket(2.0));
        assertThat(cappedForecast.droppedPerBucket(1.0)).isEqualTo(grown.droppedPerBucket(1.0));
    }

    @Test
    void pastTheShardStateCapTheFingerprintsOverflowAndDropMore() {
        DedupPlan capped = DedupPlan.builder().capacityPerBucket(128 * 40_000).shards(128).shardStateCap(2).stateFormat(StateFormat.FINGERPRINTS)
                .build();
        StateFormatForecast cappedForecast = new StateFormatForecast(capped, StateFormat.FINGERPRINTS);
        StateFormatForecast grown = new StateFormatForecast(LARGE, StateFormat.FINGERPRINTS);
        assertThat(cappedForecast.bucketFpp(cappedForecast.heldPerShard(2.0))).as("band 1 cannot open: overflow")
                .isGreaterThan(capped.bucketFpp());
        assertThat(cappedForecast.droppedPerBucket(2.0)).isGreaterThan(10 * grown.droppedPerBucket(2.0));
        assertThat(cappedForecast.droppedPerBucket(1.0)).isEqualTo(grown.droppedPerBucket(1.0));
    }

    @Test
    void belowPlanABloomFilterDropsFarFewerThanFingerprintsAtTheSameFpp() {
        StateFormatForecast bloom = new StateFormatForecast(LARGE, StateFormat.BLOOM);
        StateFormatForecast fingerprints = new StateFormatForecast(LARGE, StateFormat.FINGERPRINTS);
        assertThat(bloom.droppedPerDay(0.5)).isLessThan(fingerprints.droppedPerDay(0.5) / 50);
        assertThat(bloom.droppedPerDay(1.0)).isLessThan(fingerprints.droppedPerDay(1.0));
        assertThat(bloom.bytesPerImpression(1.0)).isGreaterThan(1.4 * fingerprints.bytesPerImpression(1.0));
    }

    @Test
    void atTheFppOfBloomsBytesTheFingerprintStoreTakesBloomsBytes() {
        double fpp = StateFormatForecast.fingerprintFppAtBloomBytes(LARGE);
        double bloomBytes = new StateFormatForecast(LARGE, StateFormat.BLOOM).bytesPerImpression(1.0);
        assertThat(new StateFormatForecast(LARGE.withFpp(fpp), StateFormat.FINGERPRINTS).bytesPerImpression(1.0))
                .isCloseTo(bloomBytes, withinPercentage(0.01));
        assertThat(fpp).isBetween(LARGE.fpp() / 1000, LARGE.fpp() / 100); // about 8 bits more per entry
    }

    /** The class comment's worked example. */
    @Test
    void theWorkedExampleOfTheClassComment() {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(2_000_000_000L).build();
        StateFormatForecast bloom = new StateFormatForecast(plan, StateFormat.BLOOM);
        StateFormatForecast fingerprints = new StateFormatForecast(plan, StateFormat.FINGERPRINTS);
        assertThat(bloom.heldPerShard(1.0)).isEqualTo(15_625_000);
        assertThat(plan.capacityPerShard()).isEqualTo(15_640_750);
        assertThat(plan.firstLayerGeometry().bits()).isEqualTo(344_569_344L);
        assertThat(plan.firstLayerGeometry().probes()).isEqualTo(12);
        assertThat(8 * bloom.bytesPerImpression(1.0)).isCloseTo(22.05, withinPercentage(0.05));
        assertThat(bloom.bucketFpp(15_625_000)).isCloseTo(9.93e-5, withinPercentage(0.1));
        assertThat(bloom.droppedPerDay(1.0)).isCloseTo(421_000, withinPercentage(0.1));
        assertThat(bloom.droppedPerDay(0.8)).isCloseTo(64_300, withinPercentage(0.1));
        assertThat(bloom.droppedPerDay(0.5)).isCloseTo(1_130, withinPercentage(0.5));
        assertThat(8 * fingerprints.bytesPerImpression(1.0)).isCloseTo(14.35, withinPercentage(0.05));
        assertThat(fingerprints.bucketFpp(15_625_000)).isCloseTo(1.798e-4, withinPercentage(0.05));
        assertThat(fingerprints.droppedPerDay(1.0)).isCloseTo(899_000, withinPercentage(0.1));
        assertThat(fingerprints.droppedPerDay(0.8)).isCloseTo(575_000, withinPercentage(0.1));
        assertThat(fingerprints.droppedPerDay(0.5)).isCloseTo(224_800, withinPercentage(0.1));
        double fpp = StateFormatForecast.fingerprintFppAtBloomBytes(plan);
        assertThat(fpp).isCloseTo(4.99e-6, withinPercentage(0.2));
        StateFormatForecast atBloomBytes = new StateFormatForecast(plan.withFpp(fpp), StateFormat.FINGERPRINTS);
        assertThat(atBloomBytes.droppedPerDay(1.0)).isCloseTo(4_480, withinPercentage(0.1));
        assertThat(atBloomBytes.droppedPerDay(0.8)).isCloseTo(2_870, withinPercentage(0.1));
        assertThat(atBloomBytes.droppedPerDay(0.5)).isCloseTo(1_120, withinPercentage(0.1));
    }
}
