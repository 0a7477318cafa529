package io.impressiondedup.job.config;

import io.impressiondedup.state.fingerprint.FingerprintSecret;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What the source-side parser needs: where the key fields and the event time are, and the limits that send a
 * record to the dead letters. Travels in the job graph (Serializable), never in state.
 */
public final class ParserSettings implements Serializable {

    private static final long serialVersionUID = 2L;

    public static final Instant DEFAULT_MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    /** The fields of the identity, the first one digested and sharded ({@code io.impressiondedup.job.io.DedupKey}). */
    private final List<FieldPath> keyFields;
    /**
     * True for the default key (request id, ad id): its first field must be a string, as it always had to be.
     * A configured key ({@code --dedup-key}) takes integers in every field.
     */
    private final boolean stringRequestId;
    private final FieldPath timestampField;
    private final int maxRecordBytes;
    private final long maxFutureSkewMillis;
    /** Event times before this (epoch millis) are malformed: see {@code --min-event-time}. */
    private final long minEventTimeMillis;
    /** The same, as an instant (for ISO-8601 event times, compared before their conversion to epoch millis). */
    private final Instant minEventTime;
    /** Keys the request-id digest ({@code --fingerprint-secret-file}); {@code null}: plain MD5. Set by {@link #withFingerprintSecret}. */
    private FingerprintSecret fingerprintSecret;

    /** The default key: (request id, ad id) at these paths (top-level names or JSON Pointers, see {@link FieldPath}). */
    public ParserSettings(String requestIdField, String adIdField, String timestampField, int maxRecordBytes, Duration maxFutureSkew,
            Instant minEventTime) {
        this(List.of(FieldPath.parse(requestIdField), FieldPath.parse(adIdField)), true, FieldPath.parse(timestampField), maxRecordBytes,
                maxFutureSkew, minEventTime);
    }

    /**
     * A configured key ({@code --dedup-key}): the identity is {@code keyFields}, each a non-empty string or an integer.
     * The paths must not overlap one another nor the timestamp's ({@code DedupJobConfig} checks that, naming the options).
     */
    public ParserSettings(List<FieldPath> keyFields, FieldPath timestampField, int maxRecordBytes, Duration maxFutureSkew,
            Instant minEventTime) {
        this(keyFields, false, timestampField, maxRecordBytes, maxFutureSkew, minEventTime);
    }

    private ParserSettings(List<FieldPath> keyFields, boolean stringRequestId, FieldPath timestampField, int maxRecordBytes,
            Duration maxFutureSkew, Instant minEventTime) {
        if (keyFields.isEmpty()) {
            throw new IllegalArgumentException("a dedup key needs at least one field");
        }
        this.keyFields = Collections.unmodifiableList(new ArrayList<>(keyFields));
        this.stringRequestId = stringRequestId;
        this.timestampField = timestampField;
        this.maxRecordBytes = maxRecordBytes;
        this.maxFutureSkewMillis = maxFutureSkew.toMillis();
        this.minEventTimeMillis = saturatedEpochMilli(minEventTime);
        this.minEventTime = Instant.ofEpochMilli(minEventTimeMillis);
    }

    /** The fields of the identity, in key order: the first is digested and shards the state; default (request id, ad id). */
    public List<FieldPath> keyFields() {
        return keyFields;
    }

    /** Whether key field {@code index} may be an integer (its text as written): all but the default key's request id. */
    public boolean integerAllowed(int index) {
        return index > 0 || !stringRequestId;
    }

    public FieldPath timestampField() {
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
        ParserSettings keyed = new ParserSettings(keyFields, stringRequestId, timestampField, maxRecordBytes,
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
