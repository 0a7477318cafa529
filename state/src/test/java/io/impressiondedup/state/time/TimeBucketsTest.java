package io.impressiondedup.state.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class TimeBucketsTest {

    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long DAY = Duration.ofDays(1).toMillis();
    private static final Duration LATENESS = TimeBuckets.DEFAULT_ALLOWED_LATENESS;
    private final TimeBuckets daily = TimeBuckets.defaults();

    private static long utc(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void dayBucketsAreDaysSinceEpochAlignedToUtcMidnight() {
        long bucket = daily.bucketOf(utc("2026-11-22T13:45:00Z"));
        assertThat(bucket).isEqualTo(utc("2026-11-22T00:00:00Z") / DAY);
        assertThat(daily.startOf(bucket)).isEqualTo(utc("2026-11-22T00:00:00Z"));
        assertThat(daily.endOf(bucket)).isEqualTo(utc("2026-11-23T00:00:00Z"));
        assertThat(daily.bucketOf(utc("2026-11-22T23:59:59.999Z"))).isEqualTo(bucket);
        assertThat(daily.bucketOf(utc("2026-11-23T00:00:00Z"))).isEqualTo(bucket + 1);
    }

    @Test
    void bucketsBeforeTheEpochRoundDown() {
        assertThat(daily.bucketOf(-1)).isEqualTo(-1);
        assertThat(daily.startOf(-1)).isEqualTo(-DAY);
    }

    @Test
    void bucketsAlignToMidnightOfTheConfiguredZone() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), LATENESS, ZoneId.of("Europe/Paris"));
        long bucket = paris.bucketOf(utc("2026-07-01T22:30:00Z")); // 00:30 on 2 July in Paris (UTC+2)
        assertThat(paris.startOf(bucket)).isEqualTo(utc("2026-07-01T22:00:00Z"));
        assertThat(paris.endOf(bucket)).isEqualTo(utc("2026-07-02T22:00:00Z"));
    }

    @Test
    void daylightSavingDaysLast23And25Hours() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), LATENESS, ZoneId.of("Europe/Paris"));
        long spring = paris.bucketOf(utc("2026-03-29T12:00:00Z"));
        long autumn = paris.bucketOf(utc("2026-10-25T12:00:00Z"));
        assertThat(paris.endOf(spring) - paris.startOf(spring)).isEqualTo(23 * HOUR);
        assertThat(paris.endOf(autumn) - paris.startOf(autumn)).isEqualTo(25 * HOUR);
    }

    @Test
    void bucketIdsNeverGoBackAsEventTimeAdvancesThroughShifts() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), LATENESS, ZoneId.of("Europe/Paris"));
        long previous = Long.MIN_VALUE;
        for (long t = utc("2026-03-27T00:00:00Z"); t < utc("2026-11-01T00:00:00Z"); t += 7 * 60_000) {
            long bucket = paris.bucketOf(t);
            assertThat(bucket).isGreaterThanOrEqualTo(previous);
            assertThat(t).isGreaterThanOrEqualTo(paris.startOf(bucket)).isLessThan(paris.endOf(bucket));
            previous = bucket;
        }
    }

    @Test
    void hourlyBucketsInAFixedOffsetZone() {
        TimeBuckets hourly = new TimeBuckets(Duration.ofHours(1), Duration.ofHours(6), LATENESS, ZoneOffset.ofHoursMinutes(5, 30));
        long bucket = hourly.bucketOf(utc("2026-01-01T00:10:00Z")); // 05:40 local
        assertThat(hourly.startOf(bucket)).isEqualTo(utc("2026-01-01T00:00:00Z") - 30 * 60_000);
        assertThat(hourly.maxBucketsChecked()).isEqualTo(13);
    }

    @Test
    void aBucketExpiresWhenTheWatermarkReachesItsEndPlusRetentionPlusAllowedLateness() {
        long bucket = daily.bucketOf(utc("2026-11-22T10:00:00Z"));
        long expiry = utc("2026-11-26T00:00:00Z"); // end 11-23, + 2 days of retention, + 1 day of allowed lateness
        assertThat(daily.expiryOf(bucket)).isEqualTo(expiry);
        assertThat(daily.isLive(bucket, expiry - 1)).isTrue();
        assertThat(daily.isLive(bucket, expiry)).isFalse();
    }

    @Test
    void withoutAllowedLatenessABucketExpiresAtItsEndPlusRetention() {
        TimeBuckets strict = daily.withAllowedLateness(Duration.ZERO);
        assertThat(strict.expiryOf(strict.bucketOf(utc("2026-11-22T10:00:00Z")))).isEqualTo(utc("2026-11-25T00:00:00Z"));
    }

    @Test
    void aRecordAtOrAheadOfTheWatermarkIsNeverLate() {
        long watermark = utc("2026-11-22T10:00:00Z");
        assertThat(daily.isLate(watermark, watermark)).isFalse();
        assertThat(daily.isLate(watermark + HOUR, watermark)).isFalse();
        assertThat(daily.withAllowedLateness(Duration.ZERO).isLate(watermark, watermark)).isFalse();
    }

    @Test
    void aRecordExactlyTheAllowedLatenessBehindIsInTimeAndOneMillisecondMoreIsLate() {
        long watermark = utc("2026-11-22T10:00:00Z");
        assertThat(daily.isLate(watermark - DAY, watermark)).isFalse();
        assertThat(daily.isLate(watermark - DAY - 1, watermark)).isTrue();
        TimeBuckets strict = daily.withAllowedLateness(Duration.ZERO);
        assertThat(strict.isLate(watermark - 1, watermark)).isTrue();
    }

    @Test
    void lateRecordsAreJudgedByTheWatermarkNotByTheirBucketsMidnight() {
        // 20 hours behind, across midnight: in time with one day of allowed lateness (the old rule
        // "the watermark has passed the end of the record's own day" made it late).
        assertThat(daily.isLate(utc("2026-11-21T14:00:00Z"), utc("2026-11-22T10:00:00Z"))).isFalse();
        assertThat(daily.isLate(utc("2026-11-21T23:59:00Z"), utc("2026-11-22T00:01:00Z"))).isFalse();
    }

    @Test
    void nothingIsLateBeforeTheFirstWatermarkAndNothingWraps() {
        assertThat(daily.isLate(Long.MIN_VALUE, Long.MIN_VALUE)).isFalse();
        assertThat(daily.isLate(Long.MIN_VALUE + 1, Long.MIN_VALUE + 5)).isFalse();
        assertThat(daily.isLate(0, Long.MAX_VALUE)).isTrue();
        assertThat(daily.expiryOf(daily.bucketOf(Long.MAX_VALUE - HOUR))).isEqualTo(Long.MAX_VALUE);
        assertThat(TimeBuckets.saturatedSubtract(Long.MIN_VALUE + 1, DAY)).isEqualTo(Long.MIN_VALUE);
        assertThat(TimeBuckets.saturatedSubtract(Long.MAX_VALUE, -DAY)).isEqualTo(Long.MAX_VALUE);
        assertThat(TimeBuckets.saturatedAdd(Long.MAX_VALUE - 1, DAY)).isEqualTo(Long.MAX_VALUE);
        assertThat(TimeBuckets.saturatedAdd(Long.MIN_VALUE + 1, -DAY)).isEqualTo(Long.MIN_VALUE);
    }

    /**
     * Rule 4's promise, checked by brute force: for any watermark and any in-time record, every bucket
     * its copies can be in is still live; and a bucket is never kept once no in-time record can need it.
     * With day buckets in UTC and in a zone with 23- and 25-hour days, and with hour buckets.
     */
    @Test
    void everyBucketAnInTimeRecordNeedsIsLiveAndNoneIsKeptLonger() {
        TimeBuckets[] variants = {
            daily,
            new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), Duration.ofHours(7), ZoneId.of("Europe/Paris")),
            new TimeBuckets(Duration.ofHours(1), Duration.ofHours(30), Duration.ofHours(5), ZoneOffset.ofHours(5)),
            new TimeBuckets(Duration.ofDays(1), Duration.ofHours(36), Duration.ZERO, ZoneId.of("America/New_York")),
        };
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        long around = utc("2026-03-29T00:30:00Z"); // the spring shift in Paris; New York shifted two weeks before
        for (TimeBuckets buckets : variants) {
            long lateness = buckets.allowedLateness().toMillis();
            long retention = buckets.retention().toMillis();
            for (int i = 0; i < 20_000; i++) {
                long watermark = around + random.nextLong(-10 * DAY, 10 * DAY);
                long t = watermark - lateness + random.nextLong(-3, 3 * HOUR); // at, just past and within the limit
                if (buckets.isLate(t, watermark)) {
                    assertThat(t).isLessThan(watermark - lateness);
                    continue;
                }
                assertThat(buckets.isLive(buckets.firstBucketToCheck(t), watermark)).as("%s t=%s W=%s", buckets, t, watermark).isTrue();
                // The bucket before the oldest live one can hold no copy of any in-time record.
                long dropped = buckets.oldestLiveBucket(watermark) - 1;
                assertThat(buckets.isLive(dropped, watermark)).isFalse();
                assertThat(buckets.endOf(dropped) - 1).isLessThan(watermark - lateness - retention);
            }
        }
    }

    @Test
    void aLateRecordEmittedAnywayIsRememberedInTheOldestLiveBucketWithinItsRange() {
        long watermark = utc("2026-11-27T00:00:00Z"); // oldest live bucket: 11-24 (expires 11-27T00:00 + 1 day)
        assertThat(daily.oldestLiveBucket(watermark)).isEqualTo(daily.bucketOf(utc("2026-11-24T00:00:00Z")));
        // Own bucket live: there.
        assertThat(daily.lateInsertBucket(utc("2026-11-25T03:00:00Z"), watermark)).isEqualTo(daily.bucketOf(utc("2026-11-25T03:00:00Z")));
        // Own bucket (11-22) gone; 11-24 is within [t - 2d, t + 2d]: there.
        assertThat(daily.lateInsertBucket(utc("2026-11-22T03:00:00Z"), watermark)).isEqualTo(daily.bucketOf(utc("2026-11-24T00:00:00Z")));
        // Every bucket of its range gone: nowhere.
        assertThat(daily.lateInsertBucket(utc("2026-11-20T03:00:00Z"), watermark)).isEqualTo(TimeBuckets.NO_BUCKET);
    }

    @Test
    void allowedLatenessMustNotBeNegative() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), Duration.ofMillis(-1), ZoneOffset.UTC))
                .hasMessageContaining("allowed lateness");
    }

    @Test
    void aRecordIsCheckedAgainstTheBucketsWithinRetentionOnBothSides() {
        long t = utc("2026-11-22T10:00:00Z");
        assertThat(daily.lastBucketToCheck(t) - daily.firstBucketToCheck(t)).isEqualTo(4);
        assertThat(daily.maxBucketsChecked()).isEqualTo(5);
    }

    @Test
    void daylightSavingZonesCountShorterDaysWhenBoundingTheBucketsChecked() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), LATENESS, ZoneId.of("Europe/Paris"));
        assertThat(paris.maxBucketsChecked()).isEqualTo(7);
    }

    @Test
    void bucketSizesThatDoNotAlignToMidnightAreRejected() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofHours(7), Duration.ofDays(2), LATENESS, ZoneOffset.UTC))
                .hasMessageContaining("PT7H")
                .hasMessageContaining("divide a day");
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofSeconds(30), Duration.ofDays(2), LATENESS, ZoneOffset.UTC))
                .hasMessageContaining("at least 1 minute");
    }

    @Test
    void subDayBucketsAreRejectedInZonesWithDaylightSaving() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofHours(1), Duration.ofDays(2), LATENESS, ZoneId.of("America/New_York")))
                .hasMessageContaining("America/New_York")
                .hasMessageContaining("whole days");
    }

    @Test
    void retentionMustBePositive() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofDays(1), Duration.ZERO, LATENESS, ZoneOffset.UTC))
                .hasMessageContaining("retention");
    }
}
