package io.impressiondedup.job.io;

/** Headers the job adds to every dead letter, next to the record's own. */
public final class DeadLetterHeaders {

    /** malformed, oversized, late or future-timestamp. */
    public static final String REASON = "dedup.reason";
    /** A short human-readable message. */
    public static final String ERROR = "dedup.error";
    public static final String SOURCE_TOPIC = "dedup.source.topic";
    public static final String SOURCE_PARTITION = "dedup.source.partition";
    public static final String SOURCE_OFFSET = "dedup.source.offset";

    private DeadLetterHeaders() {}
}
