package io.impressiondedup.job.config;

import io.impressiondedup.state.fingerprint.FingerprintSecret;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;

/** What the source-side parser needs: field names and the limits that send a record to the dead letters. */
public final class ParserSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final Instant DEFAULT_MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    private final String requestIdField;
    private final String adIdField;
    private final String timestampField;
    private final int maxRecordBytes;
    private final long maxFutureSkewMillis;
    /** Event times before this (epoch millis) are malformed: see {@code --min-event-time}. */
    private final long minEventTimeMillis;
    /** The same, as an instant (for ISO-8601 event times, compared before their conversion to epoch millis). */
    private final Instant minEventTime;
    /** Keys the request-id digest ({@code --fingerprint-secret-file}); {@code null}: plain MD5. Set by {@link #withFingerprintSecret}. */
    private FingerprintSecret fingerprintSecret;

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

    public String requestIdField() {
        return requestIdField;
    }

    public String adIdField() {
        return adIdField;
    }

    public String timestampField() {
        return timestampField;
    }

    /** Larger records (key + value) are oversized ({@code --max-record-bytes}). */
    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    /** Event times further ahead of processing time are far-future ({@code --max-future-skew}). */
    public long maxFutureSkewMillis() {
        return maxFutureSkewMillis;
    }

    /** Event times before this are malformed ({@code --min-event-time}), as epoch millis. */
    public long minEventTimeMillis() {
        return minEventTimeMillis;
    }

    /** Event times before this are malformed ({@code --min-event-time}). */
    public Instant minEventTime() {
        return minEventTime;
    }

    /** The secret request-id digests are keyed with ({@code --fingerprint-secret-file}), or {@code null}. */
    public FingerprintSecret fingerprintSecret() {
        return fingerprintSecret;
    }

    /** These settings with request-id digests keyed by {@code secret} ({@code null}: unkeyed). */
    public ParserSettings withFingerprintSecret(FingerprintSecret secret) {
        ParserSettings keyed = new ParserSettings(requestIdField, adIdField, timestampField, maxRecordBytes,
                Duration.ofMillis(maxFutureSkewMillis), minEventTime);
        keyed.fingerprintSecret = secret;
        return keyed;
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
