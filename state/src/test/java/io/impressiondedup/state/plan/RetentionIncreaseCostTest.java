package io.impressiondedup.state.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class RetentionIncreaseCostTest {

    private static final long HOUR = Duration.ofHours(1).toMillis();

    private static TimeBuckets daily(Duration retention, Duration lateness) {
        return new TimeBuckets(Duration.ofDays(1), retention, lateness, ZoneOffset.UTC);
    }

    /** The class comment's worked figure. */
    @Test
    void twoToThreeDaysAtTheDefaultsCostsUpTo1Point29TimesTheFppForTwoDaysAndSomeCostForSix() {
        RetentionIncreaseCost cost = RetentionIncreaseCost.of(TimeBuckets.defaults(), daily(Duration.ofDays(3), Duration.ofDays(1)));

        assertThat(cost.bucketsCheckedBefore()).isEqualTo(5);
        assertThat(cost.bucketsCheckedAfter()).isEqualTo(7);
        assertThat(cost.restoredBucketsPerLookup()).isEqualTo(5);
        assertThat(cost.worstFppMultiple()).isCloseTo(9.0 / 7, within(1e-12)).isCloseTo(1.286, within(0.001));
        assertThat(cost.multipleFallPerExpiredBucket()).isCloseTo(0.057, within(0.001));
        assertThat(cost.worstLastsAtMost()).isEqualTo(Duration.ofDays(2));
        assertThat(cost.excessLastsAtMost()).isEqualTo(Duration.ofDays(6));
        assertThat(cost.describe()).contains("--retention 2 d -> 3 d").contains("up to 1.286x --fpp (5/5 + 2/7)")
                .contains("at most 2 d of event time after the restore").contains("falls by 0.057x --fpp")
                .contains("--fpp holds again at most 6 d after the restore");
    }

    @Test
    void aLongerRetentionWithinTheSameBucketsCheckedCostsNoFpp() {
        RetentionIncreaseCost cost = RetentionIncreaseCost.of(daily(Duration.ofHours(36), Duration.ofDays(1)), TimeBuckets.defaults());
        assertThat(cost.bucketsCheckedBefore()).isEqualTo(cost.bucketsCheckedAfter()).isEqualTo(5);
        assertThat(cost.worstFppMultiple()).isEqualTo(1.0);
        assertThat(cost.describe()).contains("keeps the FPP per lookup at most --fpp");
    }

    @Test
    void withoutAllowedLatenessFewerRestoredBucketsMeetALookup() {
        // 4 restored buckets (2 days back, the current one, one ahead) against lookups of 7: 4/5 + 3/7.
        RetentionIncreaseCost cost = RetentionIncreaseCost.of(daily(Duration.ofDays(2), Duration.ZERO), daily(Duration.ofDays(3), Duration.ZERO));
        assertThat(cost.restoredBucketsPerLookup()).isEqualTo(4);
        assertThat(cost.worstFppMultiple()).isCloseTo(4.0 / 5 + 3.0 / 7, within(1e-12));
    }

    @Test
    void aShorterOrEqualRetentionIsNoIncrease() {
        assertThatThrownBy(() -> RetentionIncreaseCost.of(TimeBuckets.defaults(), TimeBuckets.defaults()))
                .hasMessageContaining("the retention must increase, but was PT48H and is PT48H");
    }

    /**
     * The closed forms against the rules themselves: restore at every hour of a day, hold the buckets the old options
     * kept ({@link TimeBuckets#oldestLiveBucket} of the old options to the bucket ahead of the watermark), expire them
     * by the new options ({@link TimeBuckets#expiryOf}), and take at each hour of watermark the most restored buckets
     * one lookup's {@code L_new} consecutive ids can meet.
     */
    @Test
    void theWorstMultipleAndHowLongItLastsAreWhatTheBucketRulesGiveHourByHour() {
        TimeBuckets[][] changes = {
            {TimeBuckets.defaults(), daily(Duration.ofDays(3), Duration.ofDays(1))},
            {daily(Duration.ofDays(1), Duration.ofDays(1)), daily(Duration.ofDays(4), Duration.ofDays(2))},
            {daily(Duration.ofDays(2), Duration.ofDays(3)), daily(Duration.ofDays(3), Duration.ofDays(1))},
            {new TimeBuckets(Duration.ofHours(6), Duration.ofHours(12), Duration.ofHours(6), ZoneOffset.UTC),
                new TimeBuckets(Duration.ofHours(6), Duration.ofHours(30), Duration.ofHours(6), ZoneOffset.UTC)},
        };
        for (TimeBuckets[] change : changes) {
            TimeBuckets before = change[0];
            TimeBuckets after = change[1];
            RetentionIncreaseCost cost = RetentionIncreaseCost.of(before, after);
            long start = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli();
            double worst = 0;
            long worstLasts = 0;
            long excessLasts = 0;
            for (long restore = start; restore < start + Duration.ofDays(1).toMillis(); restore += HOUR) {
                long oldest = Math.max(before.oldestLiveBucket(restore), after.oldestLiveBucket(restore));
                long newest = before.bucketOf(restore) + 1;
                double first = -1;
                for (long watermark = restore; ; watermark += HOUR) {
                    int held = 0;
                    for (long bucket = oldest; bucket <= newest; bucket++) {
                        held += after.isLive(bucket, watermark) ? 1 : 0;
                    }
                    if (held == 0) {
                        break;
                    }
                    double multiple = cost.fppMultiple(Math.min(after.maxBucketsChecked(), held));
                    first = first < 0 ? multiple : first;
                    worst = Math.max(worst, multiple);
                    if (multiple == first) {
                        worstLasts = Math.max(worstLasts, watermark + HOUR - restore);
                    }
                    if (multiple > 1) {
                        excessLasts = Math.max(excessLasts, watermark + HOUR - restore);
                    }
                }
            }
            String change1 = before + " -> " + after;
            assertThat(cost.worstFppMultiple()).as(change1).isEqualTo(worst);
            assertThat(cost.worstLastsAtMost().toMillis()).as(change1).isEqualTo(worstLasts);
            assertThat(cost.excessLastsAtMost().toMillis()).as(change1).isEqualTo(excessLasts);
        }
    }
}
