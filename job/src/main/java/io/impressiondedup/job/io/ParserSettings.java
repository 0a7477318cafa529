package io.impressiondedup.job.io;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/** What the source-side parser needs: field names and the limits that send a record to the dead letters. */
public final class ParserSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final Instant DEFAULT_MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    final String requestIdField;
    final String adIdField;
    final String timestampField;
    final int maxRecordBytes;
    final long maxFutureSkewMillis;
    /** Event times before this (epoch millis) are malformed: see {@code --min-event-time}. */
    final long minEventTimeMillis;
    /** The same, as an instant (for ISO-8601 event times, compared before their conversion to epoch millis). */
    final Instant minEventTime;

    public ParserSettings(String requestIdField, String adIdField, String timestampField, int maxRecordBytes, Duration maxFutureSkew,
            Instant minEventTime) {
        this.requestIdField = requestIdField;
        this.adIdField = adIdField;
        this.timestampField = timestampField;
        this.maxRecordBytes = maxRecordBytes;
        this.maxFutureSkewMillis = maxFutureSkew.toMillis();
        this.minEventTimeMillis = saturatedEpochMilli(minEventTime);
        this.minEventTime = Instant.ofEpochMilli(minEventTimeMillis);
    }

    /** Event times before this are malformed ({@code --min-event-time}). */
    public Instant minEventTime() {
        return minEventTime;
    }

    /** Epoch millis, or {@link Long#MIN_VALUE} / {@link Long#MAX_VALUE} for an instant beyond their range. */
    private static long saturatedEpochMilli(Instant instant) {
        try {
            return instant.toEpochMilli();
        } catch (ArithmeticException e) {
            return instant.isBefore(Instant.EPOCH) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    public static ParserSettings defaults() {
        return new ParserSettings("requestId", "adId", "ts", 64 * 1024, Duration.ofHours(1), DEFAULT_MIN_EVENT_TIME);
    }
}
