package io.impressiondedup.operators.model;

/**
 * Why a record went to the dead-letter topic, as written in its {@code dedup.reason} header.
 *
 * <p><b>Binary format:</b> the ordinal is serialized; append new reasons, never reorder.
 */
public enum DeadLetterReason {
    /** Not JSON, not an object, or a required field missing or of the wrong type. */
    MALFORMED("malformed"),
    /** Larger than the configured maximum record size. */
    OVERSIZED("oversized"),
    /** Its earliest possible duplicate's bucket has already expired: deduplicating it could pass a copy. */
    LATE("late"),
    /** Dated further ahead of processing time than the allowed skew: it would hold back nothing but could move the watermark. */
    FUTURE_TIMESTAMP("future-timestamp"),
    /** Avro input with a schema registry: the registry has no schema of the id the value carries (it answered 404). */
    SCHEMA_UNKNOWN("schema-unknown");

    private final String headerValue;

    DeadLetterReason(String headerValue) {
        this.headerValue = headerValue;
    }

    /** The value of the {@code dedup.reason} header. */
    public String headerValue() {
        return headerValue;
    }

    public static DeadLetterReason fromHeaderValue(String value) {
        for (DeadLetterReason reason : values()) {
            if (reason.headerValue.equals(value)) {
                return reason;
            }
        }
        throw new IllegalArgumentException("Unknown dead-letter reason '" + value + "'");
    }
}
