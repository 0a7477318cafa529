package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.operators.dedup.metrics.DedupMetrics;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.HashMixing;
import io.impressiondedup.state.plan.DedupPlan;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DedupOperatorTest {

    static DedupSettings settings(long capacityPerBucket, int shards) {
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(capacityPerBucket).shards(shards).fpp(0.001).build())
                .build();
    }

    static DedupSettings defaults() {
        return settings(100_000, DedupHarness.MAX_PARALLELISM);
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theFirstOccurrencePassesAndLaterCopiesAreDropped(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a1", T0 + HOUR));
            h.process(impression("r1", "a1", T0 + HOUR + 1000));
            h.process(impression("r1", "a1", T0 + HOUR));

            assertThat(h.emittedRequestIds()).containsExactly("r1/a1");
            assertThat(h.counter(DedupMetrics.UNIQUE)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(2);
        }
    }

    /**
     * Two ad ids crafted to one FNV-1a state (the pair {@code FingerprintSchemeTest} finds collide): anyone can make
     * such a pair. Their unkeyed hashes are equal, so under every request the second is one identity with the first.
     */
    private static final String CRAFTED_AD_ID = "\u5fe8\u9746\ub406x";
    private static final String COLLIDING_AD_ID = "\u6bb8\ubfe7\u5b79\u681c";
    /**
     * The golden savepoints' secret: a test JVM derives each secret's slow check value once (over a second under the
     * tests' client compiler), so the operator's tests share one.
     */
    private static final FingerprintSecret SECRET = GoldenStream.SECRET;

    /** Impressions of one request with the crafted ad ids, as a source with {@link #SECRET} reads them. */
    private static List<Object> craftedPair() {
        assertThat(HashMixing.adIdHash(COLLIDING_AD_ID)).isEqualTo(HashMixing.adIdHash(CRAFTED_AD_ID));
        return TestImpressions.keyedBy(SECRET, List.of(impression("r1", CRAFTED_AD_ID, T0 + HOUR), impression("r1", COLLIDING_AD_ID, T0 + HOUR)));
    }

    /** {@link #SECRET}'s settings, its filters hashing ad ids with its key or, as filters written before that, without. */
    private static DedupSettings withSecret(boolean adIdsKeyed) {
        DedupPlan plan = defaults().plan();
        return DedupSettings.builder().plan(plan.withFingerprintScheme(plan.fingerprintScheme().withAdIdsKeyed(adIdsKeyed)))
                .fingerprintCheck(SECRET.checkValue()).build();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCraftedAdIdCannotPassForAnotherWhenAdIdsAreKeyed(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(withSecret(true), backend)) {
            for (Object impression : craftedPair()) {
                h.process((Impression) impression);
            }
            assertThat(h.emittedRequestIds()).containsExactly("r1/" + CRAFTED_AD_ID, "r1/" + COLLIDING_AD_ID);
        }
    }

    /** The attack that keyed ad ids stop: with the unkeyed hash, a genuine impression of the second ad id is dropped. */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCraftedAdIdPassesForAnotherWhenAdIdsAreUnkeyed(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(withSecret(false), backend)) {
            for (Object impression : craftedPair()) {
                h.process((Impression) impression);
            }
            assertThat(h.emittedRequestIds()).containsExactly("r1/" + CRAFTED_AD_ID);
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theSameRequestWithAnotherAdPasses(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a1", T0 + HOUR));
            h.process(impression("r1", "a2", T0 + HOUR));
            h.process(impression("r1", "a2", T0 + HOUR));

            assertThat(h.emittedRequestIds()).containsExactly("r1/a1", "r1/a2");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theOriginalPassesUnchangedBytesAndAll(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            Impression original = impression("r1", "a1", T0 + HOUR);
            h.process(original);

            assertThat(h.emitted()).containsExactly(original);
            assertThat(h.emitted().get(0).raw().value()).isEqualTo(original.raw().value());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aDuplicateOfYesterdaysImpressionIsDropped(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a1", T0 - 10 * HOUR));
            h.watermark(T0 + 4 * HOUR);
            h.process(impression("r1", "a1", T0 + 5 * HOUR));

            assertThat(h.emittedRequestIds()).containsExactly("r1/a1");
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCopyStampedEarlierThatArrivesLaterIsDropped(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a1", T0 + DAY + HOUR)); // tomorrow's bucket
            h.process(impression("r1", "a1", T0 + 20 * HOUR)); // today's bucket, arriving later

            assertThat(h.emittedRequestIds()).containsExactly("r1/a1");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aShardWhoseBucketsExpireAgainAndAgainBetweenCheckpointsKeepsWorking(Backend backend) throws Exception {
        // One shard: every record and every expiry hits it, many times before any checkpoint flushes the directories.
        try (DedupHarness h = DedupHarness.open(settings(1000, 1), backend)) {
            for (int round = 0; round < 5; round++) {
                long dayStart = T0 + round * 3 * DAY;
                h.process(impression("r" + round, "a", dayStart + HOUR));
                h.watermark(dayStart + 3 * DAY);
            }
            assertThat(h.emittedRequestIds()).containsExactly("r0/a", "r1/a", "r2/a", "r3/a", "r4/a");
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCopyBeyondTheRetentionIsANewImpression(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a1", T0 + HOUR)); // bucket of T0 expires at T0 + 3 days
            h.watermark(T0 + 3 * DAY);
            h.process(impression("r1", "a1", T0 + 3 * DAY + HOUR));

            assertThat(h.emittedRequestIds()).containsExactly("r1/a1", "r1/a1");
            assertThat(h.late()).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aBucketsStateAndTimerAreGoneOnceTheWatermarkReachesBucketEndPlusRetentionPlusAllowedLateness(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            Set<Integer> shardKeys = new HashSet<>();
            for (int i = 0; i < 50; i++) {
                Impression impression = impression("r" + i, "a", T0 + HOUR + i);
                h.process(impression);
                shardKeys.add(h.shardKeyOf(impression));
            }
            Impression tomorrow = impression("tomorrow", "a", T0 + DAY + HOUR);
            h.process(tomorrow);
            Set<Integer> shardsWithState = new HashSet<>(shardKeys);
            shardsWithState.add(h.shardKeyOf(tomorrow));
            h.snapshot(1);
            assertThat(h.shardsWithDirectory()).isEqualTo(shardsWithState.size());
            assertThat(h.harness.numEventTimeTimers()).isEqualTo(shardKeys.size() + 1); // one per shard and bucket
            long todaysBucket = T0 / DAY;
            int someShard = shardKeys.iterator().next();
            assertThat(h.pagesPerBucket(someShard)).containsKey(todaysBucket);

            h.watermark(T0 + 4 * DAY - 1); // end of day 0 + 2 days of retention + 1 day of allowed lateness, less 1 ms
            assertThat(h.pagesPerBucket(someShard)).containsKey(todaysBucket);

            h.watermark(T0 + 4 * DAY);
            for (int shardKey : shardKeys) {
                assertThat(h.pagesPerBucket(shardKey)).doesNotContainKey(todaysBucket);
                assertThat(h.storedDirectory(shardKey) == null || h.storedDirectory(shardKey).get(todaysBucket) == null).isTrue();
            }
            assertThat(h.shardsWithDirectory()).isEqualTo(1); // only tomorrow's bucket is left
            assertThat(h.harness.numEventTimeTimers()).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.BUCKETS_EXPIRED)).isEqualTo(shardKeys.size());

            h.watermark(T0 + 5 * DAY);
            assertThat(h.shardsWithDirectory()).isZero();
            assertThat(h.harness.numEventTimeTimers()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRecordExactlyTheAllowedLatenessBehindTheWatermarkIsDeduplicatedNormally(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.watermark(T0 + 3 * DAY);
            h.process(impression("r", "a", T0 + 2 * DAY)); // W - t = 1 day = the allowed lateness
            h.process(impression("r", "a", T0 + 2 * DAY));

            assertThat(h.emittedRequestIds()).containsExactly("r/a");
            assertThat(h.late()).isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.LATE_DUPLICATES)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aRecordOneMillisecondPastTheAllowedLatenessThatIsNoCopyIsDeadLetteredAsLate(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.watermark(T0 + 3 * DAY);
            h.process(impression("old", "a", T0 + 2 * DAY - 1));

            assertThat(h.emitted()).isEmpty();
            assertThat(h.late()).hasSize(1);
            DeadLetter late = h.late().get(0);
            assertThat(late.reason()).isEqualTo(DeadLetterReason.LATE);
            assertThat(late.error()).contains("more than the allowed lateness (PT24H) behind the watermark 2026-11-25T00:00:00Z");
            assertThat(new String(late.raw().value(), java.nio.charset.StandardCharsets.UTF_8)).contains("\"requestId\":\"old\"");
            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(1);
        }
    }

    @Test
    void withStatsOnEveryRecordHasExactlyOneOutcomeAndWithoutNone() throws Exception {
        DedupSettings withStats = DedupSettings.builder().plan(defaults().plan()).emitOutcomes(true).build();
        for (DedupSettings settings : List.of(withStats, defaults())) {
            try (DedupHarness h = DedupHarness.open(settings, Backend.HASHMAP)) {
                h.process(impression("r1", "a", T0 + HOUR));
                h.process(impression("r1", "a", T0 + HOUR + 5));
                h.watermark(T0 + 3 * DAY);
                h.process(impression("old", "a", T0 + 2 * DAY - 1));

                assertThat(h.outcomes()).extracting(o -> o.outcome() + "@" + o.eventTime()).isEqualTo(settings.emitOutcomes()
                        ? List.of("UNIQUE@" + (T0 + HOUR), "DUPLICATE@" + (T0 + HOUR + 5), "LATE@" + (T0 + 2 * DAY - 1))
                        : List.of());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aGenuineImpressionTwentyHoursLateAcrossMidnightPasses(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r1", "a", T0 + DAY + 9 * HOUR));
            h.watermark(T0 + DAY + 10 * HOUR);
            h.process(impression("delayed", "a", T0 + 14 * HOUR)); // yesterday, 20 hours behind
            h.process(impression("delayed", "a", T0 + 14 * HOUR)); // and its retry

            assertThat(h.emittedRequestIds()).containsExactly("r1/a", "delayed/a");
            assertThat(h.late()).isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aCopyPastTheAllowedLatenessOfAnImpressionInALiveBucketIsALateDuplicate(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r", "a", T0 + 20 * HOUR));
            h.watermark(T0 + 2 * DAY + HOUR); // 29 h past the original: late, but day 0 lives until T0 + 4 days
            h.process(impression("r", "a", T0 + 20 * HOUR));

            assertThat(h.emittedRequestIds()).containsExactly("r/a");
            assertThat(h.late()).isEmpty();
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.LATE_DUPLICATES)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.LATE)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void underTheEmitPolicyALateMissIsForwardedWithAHeaderAndItsLaterCopiesAreDuplicates(Backend backend) throws Exception {
        DedupSettings emit = DedupSettings.builder().plan(defaults().plan()).latePolicy(LatePolicy.EMIT).build();
        try (DedupHarness h = DedupHarness.open(emit, backend)) {
            h.watermark(T0 + 5 * DAY); // day 0 expired at T0 + 4 days; days 2.. are live
            h.process(impression("old", "a", T0 + HOUR)); // own bucket gone: remembered in day 2, within its range
            h.process(impression("old", "a", T0 + HOUR));
            h.process(impression("ancient", "a", T0 - 10 * DAY)); // no live bucket in its range: remembered nowhere
            h.process(impression("ancient", "a", T0 - 10 * DAY));

            assertThat(h.emittedRequestIds()).containsExactly("old/a", "ancient/a", "ancient/a");
            Impression forwarded = h.emitted().get(0);
            assertThat(forwarded.raw().headerKey(forwarded.raw().headerCount() - 1)).isEqualTo(DedupOperator.LATE_HEADER);
            assertThat(new String(forwarded.raw().headerValue(forwarded.raw().headerCount() - 1), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("true");
            assertThat(h.late()).isEmpty();
            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(3);
            assertThat(h.counter(DedupMetrics.LATE_DUPLICATES)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.UNIQUE)).isZero();
            assertThat(h.counter(DedupMetrics.RECORDS_IN)).isEqualTo(4);
        }
    }

    /** The dashboards' dead letters by reason: {@code late} counts what goes to the dead-letter output, not every late miss. */
    @ParameterizedTest
    @EnumSource(LatePolicy.class)
    void onlyLateMissesSentToTheDeadLetterOutputCountAsDeadLettersWithReasonLate(LatePolicy policy) throws Exception {
        DedupSettings settings = DedupSettings.builder().plan(defaults().plan()).latePolicy(policy).build();
        try (DedupHarness h = DedupHarness.open(settings, Backend.HASHMAP)) {
            h.watermark(T0 + 5 * DAY);
            h.process(impression("old", "a", T0 + HOUR));
            h.process(impression("ancient", "a", T0 - 10 * DAY));
            h.process(impression("fresh", "a", T0 + 5 * DAY));

            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(2);
            assertThat(h.deadLetters(DeadLetterReason.LATE)).as("dead letters with reason late under %s", policy)
                    .isEqualTo(h.late().size()).isEqualTo(policy == LatePolicy.DEAD_LETTER ? 2 : 0);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void underTheDropPolicyALateMissIsOnlyCounted(Backend backend) throws Exception {
        DedupSettings drop = DedupSettings.builder().plan(defaults().plan()).latePolicy(LatePolicy.DROP).build();
        try (DedupHarness h = DedupHarness.open(drop, backend)) {
            h.watermark(T0 + 5 * DAY);
            h.process(impression("old", "a", T0 + HOUR));

            assertThat(h.emitted()).isEmpty();
            assertThat(h.late()).isEmpty();
            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void afterARestoreLatenessIsJudgedAgainstTheWatermarkReachedBeforeIt(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDayZeroDropped(backend);
        try (DedupHarness restored = DedupHarness.open(defaults(), backend, 1, 0, state)) {
            // Flink's watermark starts from nothing after a restore; the copy of r must not pass as new.
            restored.process(impression("r", "a", T0 + 2 * HOUR));

            assertThat(restored.emitted()).isEmpty();
            assertThat(restored.late()).hasSize(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void resettingTheLatenessWatermarkOnRestoreJudgesByTheNewRunsWatermarkOnly(Backend backend) throws Exception {
        OperatorSubtaskState state = stateWithDayZeroDropped(backend);
        DedupSettings reset = DedupSettings.builder().plan(defaults().plan()).resetLatenessWatermark(true).build();
        try (DedupHarness restored = DedupHarness.open(reset, backend, 1, 0, state)) {
            restored.process(impression("r", "a", T0 + 2 * HOUR)); // its original's bucket is gone: passes, as documented

            assertThat(restored.emittedRequestIds()).containsExactly("r/a");
            assertThat(restored.late()).isEmpty();
        }
    }

    private static OperatorSubtaskState stateWithDayZeroDropped(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            h.process(impression("r", "a", T0 + HOUR));
            h.watermark(T0 + 4 * DAY + HOUR); // the bucket of T0 is dropped
            return h.snapshot(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void everyRecordIsCountedAsUniqueDuplicateOrLate(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(defaults(), backend)) {
            for (int i = 0; i < 300; i++) {
                h.process(impression("r" + (i % 120), "a", T0 + 3 * DAY + i));
                if (i == 150) {
                    h.watermark(T0 + 3 * DAY); // records at T0 are 3 days behind: past the allowed lateness
                }
                if (i % 50 == 0) {
                    h.process(impression("late" + i, "a", T0));
                }
            }
            long in = h.counter(DedupMetrics.RECORDS_IN);
            assertThat(in).isEqualTo(306);
            assertThat(h.counter(DedupMetrics.UNIQUE) + h.counter(DedupMetrics.DUPLICATES) + h.counter(DedupMetrics.LATE)).isEqualTo(in);
            // Before the first watermark nothing is late: the first three old records pass as new.
            assertThat(h.counter(DedupMetrics.UNIQUE)).isEqualTo(h.emitted().size()).isEqualTo(120 + 3);
            assertThat(h.counter(DedupMetrics.LATE)).isEqualTo(3);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void duplicatesReachTheAuditOutputOnlyWhenAskedFor(Backend backend) throws Exception {
        try (DedupHarness off = DedupHarness.open(defaults(), backend)) {
            off.process(impression("r", "a", T0));
            off.process(impression("r", "a", T0));
            assertThat(off.duplicates()).isEmpty();
        }
        DedupSettings audit = DedupSettings.builder().plan(defaults().plan()).emitDuplicates(true).build();
        try (DedupHarness on = DedupHarness.open(audit, backend)) {
            on.process(impression("r", "a", T0));
            on.process(impression("r", "a", T0 + 1));
            assertThat(on.duplicates()).extracting(Impression::eventTime).containsExactly(T0 + 1);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aFilterOverItsPlannedCapacityGrowsAndNeverForgets(Backend backend) throws Exception {
        DedupSettings settings = settings(100, 1); // one shard planned for 100 per day
        try (DedupHarness h = DedupHarness.open(settings, backend)) {
            for (int i = 0; i < 800; i++) {
                h.process(impression("r" + i, "a", T0 + i));
            }
            // Layers of 100, 200 and 400 hold 700; the 701st unique impression opens a fourth layer.
            assertThat(h.counter(DedupMetrics.FILTER_EXPANSIONS)).isEqualTo(3);
            assertThat(h.counter(DedupMetrics.UNIQUE)).isGreaterThanOrEqualTo(795);

            for (int i = 0; i < 800; i++) {
                h.process(impression("r" + i, "a", T0 + 1000 + i));
            }
            assertThat(h.counter(DedupMetrics.UNIQUE) + h.counter(DedupMetrics.DUPLICATES)).isEqualTo(1600);
            assertThat(h.emitted()).hasSize((int) h.counter(DedupMetrics.UNIQUE)); // no copy got through

            h.snapshot(1); // refreshes the gauges
            assertThat((Double) h.gauge(DedupMetrics.MAX_FILL_RATIO)).isGreaterThan(7.9);
            assertThat((Integer) h.gauge(DedupMetrics.LIVE_BUCKETS)).isEqualTo(1);
            assertThat((Double) h.gauge(DedupMetrics.ESTIMATED_FPP)).isGreaterThan(0).isLessThan(settings.plan().bucketFpp());
            assertThat((Long) h.gauge(DedupMetrics.BLOOM_BYTES)).isPositive();
            assertThat((Double) h.gauge(DedupMetrics.CONFIGURED_FPP)).isEqualTo(settings.plan().fpp());
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theDirectoryInStateIsCurrentAtEveryCheckpoint(Backend backend) throws Exception {
        try (DedupHarness h = DedupHarness.open(settings(1000, 1), backend)) {
            for (int i = 0; i < 10; i++) {
                h.process(impression("r" + i, "a", T0 + i));
            }
            int shardKey = h.shardKeyOf(impression("r0", "a", T0));
            assertThat(h.storedDirectory(shardKey)).isNull(); // not yet flushed

            h.snapshot(1);
            assertThat(h.storedDirectory(shardKey).get(T0 / DAY).inserted()).isEqualTo(10);
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void aBucketTheWatermarkNeverExpiresIsDroppedByTheSafetyTtl(Backend backend) throws Exception {
        DedupSettings settings = DedupSettings.builder().plan(defaults().plan()).stateTtl(java.time.Duration.ofDays(5)).build();
        try (DedupHarness h = DedupHarness.open(settings, backend)) {
            h.harness.setProcessingTime(0);
            Impression impression = impression("r", "a", T0 + HOUR);
            h.process(impression);
            int shardKey = h.shardKeyOf(impression);
            h.snapshot(1);
            assertThat(h.pagesPerBucket(shardKey)).isNotEmpty();

            h.harness.setProcessingTime(5 * DAY - 1); // the watermark never moves
            assertThat(h.pagesPerBucket(shardKey)).isNotEmpty();
            h.harness.setProcessingTime(5 * DAY);

            assertThat(h.pagesPerBucket(shardKey)).isEmpty();
            assertThat(h.shardsWithDirectory()).isZero();
            assertThat(h.harness.numEventTimeTimers()).isZero();
            assertThat(h.counter(DedupMetrics.BUCKETS_DROPPED_BY_SAFETY_TTL)).isEqualTo(1);
            assertThat(h.counter(DedupMetrics.BUCKETS_EXPIRED)).isZero();
        }
    }

    /**
     * State the state tools write has no timers (see {@code DedupStateLayout}): the operator registers them again from
     * the directory on restore, and the restored buckets expire by event time and by the safety TTL as the job's own do.
     */
    @ParameterizedTest
    @EnumSource(Backend.class)
    void aBucketRestoredWithoutItsTimersStillExpiresByEventTimeAndByTheSafetyTtl(Backend backend) throws Exception {
        DedupSettings settings = DedupSettings.builder().plan(defaults().plan()).stateTtl(java.time.Duration.ofDays(5)).build();
        Impression today = impression("r", "a", T0 + HOUR); // expires at T0 + 4 days
        Impression later = impression("q", "a", T0 + 3 * DAY + HOUR); // expires at T0 + 7 days
        Map<Integer, BucketFilters> directories = new HashMap<>();
        Map<Integer, Map<Long, PageGroup>> pages = new HashMap<>();
        try (DedupHarness written = DedupHarness.open(settings, backend)) {
            written.process(today);
            written.process(later);
            written.snapshot(1);
            for (Impression impression : List.of(today, later)) {
                int key = written.shardKeyOf(impression);
                directories.put(key, written.storedDirectory(key));
                pages.put(key, written.storedPages(key));
            }
        }
        OperatorSubtaskState withoutTimers;
        try (DedupHarness copied = DedupHarness.open(settings, backend)) {
            for (int key : directories.keySet()) {
                copied.writeShardState(key, directories.get(key), pages.get(key));
            }
            assertThat(copied.harness.numEventTimeTimers()).isZero();
            withoutTimers = copied.snapshot(1);
        }
        try (DedupHarness h = DedupHarness.open(settings, backend, 1, 0, withoutTimers)) {
            h.harness.setProcessingTime(0);
            assertThat(h.harness.numEventTimeTimers()).isEqualTo(2);
            assertThat(h.harness.numProcessingTimeTimers()).isEqualTo(2);

            h.watermark(T0 + 4 * DAY - 1);
            assertThat(h.pagesPerBucket(h.shardKeyOf(today))).containsOnlyKeys(T0 / DAY);
            h.watermark(T0 + 4 * DAY); // end of day 0 + 2 days of retention + 1 day of allowed lateness
            assertThat(h.pagesPerBucket(h.shardKeyOf(today))).isEmpty();
            assertThat(h.counter(DedupMetrics.BUCKETS_EXPIRED)).isEqualTo(1);

            h.harness.setProcessingTime(5 * DAY); // the watermark stops: the safety TTL drops the other bucket
            assertThat(h.pagesPerBucket(h.shardKeyOf(later))).isEmpty();
            assertThat(h.counter(DedupMetrics.BUCKETS_DROPPED_BY_SAFETY_TTL)).isEqualTo(1);
            assertThat(h.shardsWithDirectory()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void restoringWithAnotherShardCountFailsNamingBothCounts(Backend backend) throws Exception {
        OperatorSubtaskState state;
        try (DedupHarness h = DedupHarness.open(settings(1000, 128), backend)) {
            h.process(impression("r", "a", T0));
            state = h.snapshot(1);
        }
        assertThatThrownBy(() -> DedupHarness.open(settings(1000, 64), backend, 1, 0, state))
                .hasStackTraceContaining("written with 128 shards, but this job runs with 64");
    }

    /**
     * With the page-group cache, a bucket's pages written since the last checkpoint are only in the cache (or, evicted,
     * in state): its expiry must drop them from both, or the next flush would write the dropped bucket back.
     */
    @ParameterizedTest(name = "cache of {0} groups")
    @org.junit.jupiter.params.provider.ValueSource(ints = {2, 100_000})
    void anExpiredBucketsPagesNeverComeBackFromThePageCache(int cachedGroups) throws Exception {
        DedupPlan plan = DedupPlan.builder().capacityPerBucket(100_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001).pageBytes(256).build();
        DedupSettings settings = DedupSettings.builder().plan(plan)
                .pageCacheBytes(cachedGroups * DedupSettings.pageCacheBytesPerGroup(plan)).build();
        try (DedupHarness h = DedupHarness.open(settings, Backend.ROCKSDB)) {
            Set<Integer> shardKeys = new HashSet<>();
            for (int i = 0; i < 200; i++) {
                Impression today = impression("r" + i, "a", T0 + HOUR + i);
                h.process(today);
                h.process(impression("r" + i, "b", T0 + DAY + HOUR + i)); // same shard, same pages: groups hold both days
                shardKeys.add(h.shardKeyOf(today));
            }
            h.watermark(T0 + 4 * DAY); // day 0 expires, day 1 stays

            h.snapshot(1);
            long today = T0 / DAY;
            long pagesOfTomorrow = 0;
            for (int shardKey : shardKeys) {
                assertThat(h.pagesPerBucket(shardKey)).as("shard key %s", shardKey).doesNotContainKey(today);
                pagesOfTomorrow += h.pagesPerBucket(shardKey).getOrDefault(today + 1, 0L);
            }
            assertThat(pagesOfTomorrow).isGreaterThanOrEqualTo(shardKeys.size());
        }
    }

    /**
     * A bucket's expiry rewrites its shard's pages in state; the pages that stay are then served from the cache as state
     * holds them, not read back from state at the shard's next lookups (which had cost a read of every group of the shard
     * after each expiry: bench/results/2026-12-08-small-profile-16m-both-clusters.md).
     */
    @ParameterizedTest
    @EnumSource(StateFormat.class)
    void thePagesABucketExpiryLeavesAreServedFromTheCacheNotReadFromStateAgain(StateFormat format) throws Exception {
        DedupSettings cached = DedupSettings.builder().plan(defaults().plan()).pageCacheBytes(16L << 20).build();
        try (DedupHarness h = DedupHarness.open(DifferentialDedupTest.inFormat(cached, format), Backend.ROCKSDB)) {
            for (int i = 0; i < 200; i++) {
                h.process(impression("r" + i, "a", T0 + HOUR + i));
                h.process(impression("r" + i, "b", T0 + DAY + HOUR + i)); // same shard: day 0's and day 1's pages
            }
            h.watermark(T0 + 4 * DAY); // day 0 expires, day 1 stays
            long misses = h.counter(DedupMetrics.PAGE_CACHE_MISSES);
            long hits = h.counter(DedupMetrics.PAGE_CACHE_HITS);
            for (int i = 0; i < 200; i++) {
                h.process(impression("r" + i, "b", T0 + DAY + HOUR + i)); // copies, found in day 1's pages
            }
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(200);
            assertThat(h.counter(DedupMetrics.PAGE_CACHE_MISSES)).as("pages read from state again after the expiry").isEqualTo(misses);
            assertThat(h.counter(DedupMetrics.PAGE_CACHE_HITS) - hits).isGreaterThanOrEqualTo(200);
        }
    }

    /**
     * After a restore that switches {@code --state-format}, a record meets the restored buckets of the other format: their
     * pages are served from a page cache too (each format gets half the budget while both are held), not read and
     * written uncached.
     */
    @ParameterizedTest
    @EnumSource(StateFormat.class)
    void afterARestoreThatSwitchesTheStateFormatTheRestoredFormatsPagesAreCachedToo(StateFormat restored) throws Exception {
        StateFormat plan = restored == StateFormat.BLOOM ? StateFormat.FINGERPRINTS : StateFormat.BLOOM;
        DedupSettings cached = DedupSettings.builder().plan(defaults().plan()).pageCacheBytes(16L << 20).build();
        OperatorSubtaskState state;
        try (DedupHarness h = DedupHarness.open(DifferentialDedupTest.inFormat(cached, restored), Backend.ROCKSDB)) {
            for (int i = 0; i < 200; i++) {
                h.process(impression("r" + i, "a", T0 + HOUR + i));
            }
            state = h.snapshot(1);
        }
        try (DedupHarness h = DedupHarness.open(DifferentialDedupTest.inFormat(cached, plan), Backend.ROCKSDB, 1, 0, state)) {
            for (int i = 0; i < 200; i++) {
                h.process(impression("r" + i, "a", T0 + HOUR + i)); // copies, found in the restored buckets
            }
            long misses = h.counter(DedupMetrics.PAGE_CACHE_MISSES);
            assertThat(misses + h.counter(DedupMetrics.PAGE_CACHE_HITS)).as("reads of the restored format's pages through a cache")
                    .isGreaterThanOrEqualTo(200);
            long hits = h.counter(DedupMetrics.PAGE_CACHE_HITS);
            for (int i = 0; i < 200; i++) {
                h.process(impression("r" + i, "a", T0 + HOUR + i));
            }
            assertThat(h.counter(DedupMetrics.DUPLICATES)).isEqualTo(400);
            assertThat(h.counter(DedupMetrics.PAGE_CACHE_MISSES)).as("the second pass reads no page from state").isEqualTo(misses);
            assertThat(h.counter(DedupMetrics.PAGE_CACHE_HITS) - hits).isGreaterThanOrEqualTo(200);
        }
    }
}
