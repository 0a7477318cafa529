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
 * The time options are recorded in state ({@link TimeBuckets} rule 7, {@code TimeOptionsCheck}). State written
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

    /** A longer retention needs --allow-retention-increase: the buckets the shorter one dropped are gone. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aLongerRetentionOnRestoreIsRefusedNamingTheOptionThatAcceptsIt(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDay0Dropped(backend);
        assertThatThrownBy(() -> DedupHarness.open(settings(Duration.ofDays(1), Duration.ofDays(3), Duration.ZERO, ZoneOffset.UTC),
                backend, 1, 0, state))
                .hasStackTraceContaining("--retention PT24H")
                .hasStackTraceContaining("--allow-retention-increase");
    }

    /**
     * Accepted, a longer retention keeps the old one's promise and extends it where state is held. Resumed with 3 days:
     * C (day 1, still held) and its copy 14 h later meet; A's bucket (day 0) is gone, so the record 49 h after A, a copy
     * under the new retention but not under the old one, passes once, as the option says; a record the old options
     * accepted is never set aside.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void anAcceptedLongerRetentionFindsEveryCopyTheOldOneWouldAndSetsNoGenuineRecordAside(Backend backend) throws Exception {
        OperatorSubtaskState state;
        try (DedupHarness h = DedupHarness.open(WRITTEN, backend)) {
            h.process(impression("A", "ad", T0 + HOUR));
            h.process(impression("C", "ad", T0 + DAY + 12 * HOUR));
            h.watermark(T0 + 2 * DAY + HOUR);
            state = h.snapshot(1);
        }
        DedupSettings longer = DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(10_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001)
                        .timeBuckets(new TimeBuckets(Duration.ofDays(1), Duration.ofDays(3), Duration.ZERO, ZoneOffset.UTC)).build())
                .allowRetentionIncrease(true)
                .build();
        try (DedupHarness h = DedupHarness.open(longer, backend, 1, 0, state)) {
            h.process(impression("C", "ad", T0 + 2 * DAY + 2 * HOUR));
            h.process(impression("A", "ad", T0 + 2 * DAY + 2 * HOUR));
            assertThat(h.emittedRequestIds()).containsExactly("A/ad");
            assertThat(h.counter("duplicates")).isEqualTo(1);
            assertThat(h.late()).isEmpty();
        }
    }

    /**
     * Resumed with 2 days of allowed lateness, a copy of A at A's own time is in time by the watermark, but its bucket is
     * gone: the old lateness set it aside, and so does the restored job (rule 7), until the watermark has moved past.
     */
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
