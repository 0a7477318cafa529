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
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), ZoneId.of("Europe/Paris"));
        long bucket = paris.bucketOf(utc("2026-07-01T22:30:00Z")); // 00:30 on 2 July in Paris (UTC+2)
        assertThat(paris.startOf(bucket)).isEqualTo(utc("2026-07-01T22:00:00Z"));
        assertThat(paris.endOf(bucket)).isEqualTo(utc("2026-07-02T22:00:00Z"));
    }

    @Test
    void daylightSavingDaysLast23And25Hours() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), ZoneId.of("Europe/Paris"));
        long spring = paris.bucketOf(utc("2026-03-29T12:00:00Z"));
        long autumn = paris.bucketOf(utc("2026-10-25T12:00:00Z"));
        assertThat(paris.endOf(spring) - paris.startOf(spring)).isEqualTo(23 * HOUR);
        assertThat(paris.endOf(autumn) - paris.startOf(autumn)).isEqualTo(25 * HOUR);
    }

    @Test
    void bucketIdsNeverGoBackAsEventTimeAdvancesThroughShifts() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), ZoneId.of("Europe/Paris"));
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
        TimeBuckets hourly = new TimeBuckets(Duration.ofHours(1), Duration.ofHours(6), ZoneOffset.ofHoursMinutes(5, 30));
        long bucket = hourly.bucketOf(utc("2026-01-01T00:10:00Z")); // 05:40 local
        assertThat(hourly.startOf(bucket)).isEqualTo(utc("2026-01-01T00:00:00Z") - 30 * 60_000);
        assertThat(hourly.maxBucketsChecked()).isEqualTo(13);
    }

    @Test
    void aBucketExpiresWhenTheWatermarkReachesItsEndPlusRetention() {
        long bucket = daily.bucketOf(utc("2026-11-22T10:00:00Z"));
        long expiry = utc("2026-11-25T00:00:00Z");
        assertThat(daily.expiryOf(bucket)).isEqualTo(expiry);
        assertThat(daily.isLive(bucket, expiry - 1)).isTrue();
        assertThat(daily.isLive(bucket, expiry)).isFalse();
    }

    @Test
    void aRecordAtOrAheadOfTheWatermarkIsNeverLate() {
        long watermark = utc("2026-11-22T10:00:00Z");
        assertThat(daily.isLate(watermark, watermark)).isFalse();
        assertThat(daily.isLate(watermark + HOUR, watermark)).isFalse();
    }

    @Test
    void aRecordIsLateOnceTheOldestBucketItsCopiesCouldBeInHasExpired() {
        long t = utc("2026-11-22T10:00:00Z");
        // Copies up to 2 days older live in the bucket of 2026-11-20, which expires at 2026-11-23T00:00.
        assertThat(daily.firstBucketToCheck(t)).isEqualTo(daily.bucketOf(utc("2026-11-20T10:00:00Z")));
        assertThat(daily.isLate(t, utc("2026-11-22T23:59:59.999Z"))).isFalse();
        assertThat(daily.isLate(t, utc("2026-11-23T00:00:00Z"))).isTrue();
    }

    @Test
    void aRecordIsCheckedAgainstTheBucketsWithinRetentionOnBothSides() {
        long t = utc("2026-11-22T10:00:00Z");
        assertThat(daily.lastBucketToCheck(t) - daily.firstBucketToCheck(t)).isEqualTo(4);
        assertThat(daily.maxBucketsChecked()).isEqualTo(5);
    }

    @Test
    void daylightSavingZonesCountShorterDaysWhenBoundingTheBucketsChecked() {
        TimeBuckets paris = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), ZoneId.of("Europe/Paris"));
        assertThat(paris.maxBucketsChecked()).isEqualTo(7);
    }

    @Test
    void bucketSizesThatDoNotAlignToMidnightAreRejected() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofHours(7), Duration.ofDays(2), ZoneOffset.UTC))
                .hasMessageContaining("PT7H")
                .hasMessageContaining("divide a day");
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofSeconds(30), Duration.ofDays(2), ZoneOffset.UTC))
                .hasMessageContaining("at least 1 minute");
    }

    @Test
    void subDayBucketsAreRejectedInZonesWithDaylightSaving() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofHours(1), Duration.ofDays(2), ZoneId.of("America/New_York")))
                .hasMessageContaining("America/New_York")
                .hasMessageContaining("whole days");
    }

    @Test
    void retentionMustBePositive() {
        assertThatThrownBy(() -> new TimeBuckets(Duration.ofDays(1), Duration.ZERO, ZoneOffset.UTC))
                .hasMessageContaining("retention");
    }
}
