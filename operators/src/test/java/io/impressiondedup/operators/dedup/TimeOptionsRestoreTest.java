package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The time options are recorded in state ({@link TimeBuckets} rule 7, {@link TimeOptionsCheck}). State written
 * with a retention of 1 day and no allowed lateness holds impression A at T0 + 1h in bucket day 0, dropped when the
 * watermark passes T0 + 2 days; the snapshot is taken at T0 + 2 days + 1 h.
 */
class TimeOptionsRestoreTest {

    static DedupSettings settings(Duration bucket, Duration retention, Duration lateness, ZoneId zone) {
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(10_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                        .timeBuckets(new TimeBuckets(bucket, retention, lateness, zone)).build())
                .build();
    }

    static final DedupSettings WRITTEN = settings(Duration.ofDays(1), Duration.ofDays(1), Duration.ZERO, ZoneOffset.UTC);

    static OperatorSubtaskState stateWithDay0Dropped(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(WRITTEN, backend)) {
            h.process(impression("A", "ad", T0 + HOUR));
            h.watermark(T0 + 2 * DAY + HOUR);
            assertThat(h.counter("buckets-expired")).isEqualTo(1);
            return h.snapshot(1);
        }
    }

    /** Control: under the options it was written with, a record a day and an hour after A is beyond the retention: new. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void underTheSameOptionsARecordBeyondTheRetentionOfADroppedCopyIsNew(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        try (DedupHarness h = DedupHarness.open(WRITTEN, backend, 1, 0, state)) {
            h.process(impression("A", "ad", T0 + 2 * DAY + 2 * HOUR));
            assertThat(h.emitted()).hasSize(1);
        }
    }

    /**
     * Resumed with a retention of 3 days, the record at T0 + 2 days + 2 h is a copy of A (41 h apart), and A's bucket
     * is gone: it must not pass as new. It is late (its range reaches before the oldest bucket held), checked against
     * the live buckets, and dead-lettered.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLongerRetentionOnRestoreLetsNoCopyOfAnImpressionInADroppedBucketPass(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        try (DedupHarness h = DedupHarness.open(settings(Duration.ofDays(1), Duration.ofDays(3), Duration.ZERO, ZoneOffset.UTC),
                backend, 1, 0, state)) {
            h.process(impression("A", "ad", T0 + 2 * DAY + 2 * HOUR));
            assertThat(h.emitted()).isEmpty();
            assertThat(h.late()).hasSize(1);
        }
    }

    /** Resumed with 2 days of allowed lateness, a copy of A at A's own time is in time by the watermark, but its bucket is gone. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLongerAllowedLatenessOnRestoreLetsNoCopyOfAnImpressionInADroppedBucketPass(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        try (DedupHarness h = DedupHarness.open(settings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofDays(2), ZoneOffset.UTC),
                backend, 1, 0, state)) {
            h.process(impression("A", "ad", T0 + HOUR));
            assertThat(h.emitted()).isEmpty();
            assertThat(h.late()).hasSize(1);
            // Once the watermark has moved past what the old options dropped, the new lateness applies in full.
            h.watermark(T0 + 4 * DAY);
            h.process(impression("B", "ad", T0 + 2 * DAY + 1));
            assertThat(h.emitted()).hasSize(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoreUnderAnotherBucketSizeIsRefusedNamingTheOption(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        assertThatThrownBy(() -> DedupHarness.open(settings(Duration.ofHours(6), Duration.ofDays(1), Duration.ZERO, ZoneOffset.UTC),
                backend, 1, 0, state))
                .hasStackTraceContaining("--bucket-size PT24H")
                .hasStackTraceContaining("but this job runs with PT6H");
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRestoreUnderAnotherZoneIsRefusedNamingTheOption(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        assertThatThrownBy(() -> DedupHarness.open(settings(Duration.ofDays(1), Duration.ofDays(1), Duration.ZERO, ZoneId.of("Europe/Paris")),
                backend, 1, 0, state))
                .hasStackTraceContaining("--zone Z ")
                .hasStackTraceContaining("but this job runs with Europe/Paris");
    }
}
