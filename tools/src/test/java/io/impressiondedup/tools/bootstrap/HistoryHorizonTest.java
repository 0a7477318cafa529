package io.impressiondedup.tools.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

class HistoryHorizonTest {

    /** Daily buckets, 2 days retention, 1 day allowed lateness: day d is dropped when the watermark reaches day d + 4. */
    private final TimeBuckets buckets = new TimeBuckets(Duration.ofDays(1), Duration.ofDays(2), Duration.ofDays(1), ZoneId.of("UTC"));
    private final long asOf = Instant.parse("2026-11-22T15:30:00Z").toEpochMilli();
    private final HistoryHorizon horizon = new HistoryHorizon(buckets, asOf);

    @Test
    void aRowExactlyAtTheExpiryLimitIsKeptAndOneMillisecondBeforeItIsSkipped() {
        long limit = Instant.parse("2026-11-19T00:00:00Z").toEpochMilli(); // day 19 expires at 23 + ... = 2026-11-23T00:00Z
        assertThat(horizon.oldestKeptTime()).isEqualTo(limit);
        assertThat(horizon.expired(limit)).isFalse();
        assertThat(horizon.expired(limit - 1)).isTrue();
        assertThat(horizon.expired(asOf)).isFalse();
    }

    @Test
    void aBucketIsSkippedAtTheVeryMillisecondTheJobWouldDropIt() {
        long dayStart = Instant.parse("2026-11-19T00:00:00Z").toEpochMilli();
        long expiry = buckets.expiryOf(buckets.bucketOf(dayStart));
        assertThat(expiry).isEqualTo(Instant.parse("2026-11-23T00:00:00Z").toEpochMilli());
        assertThat(new HistoryHorizon(buckets, expiry - 1).expired(dayStart)).isFalse();
        assertThat(new HistoryHorizon(buckets, expiry).expired(dayStart)).isTrue();
        assertThat(new HistoryHorizon(buckets, expiry).expired(dayStart + Duration.ofDays(1).toMillis())).isFalse();
    }
}
