package io.impressiondedup.job.io.kafka;

/**
 * Headers the job adds to every dead letter, after the record's own.
 *
 * <p><b>The contract</b> (the table of {@code docs/DEAD-LETTERS.md}, pinned to this class by {@code
 * DeadLetterContractTest}; names are never renamed, only added). A dead letter is the original record (key,
 * value, timestamp, headers) plus {@link #REASON}, {@link #ERROR}, {@link #SOURCE_TOPIC}, {@link
 * #SOURCE_PARTITION} and {@link #SOURCE_OFFSET}, always, and {@link #SOURCE_TIMESTAMP} when the original
 * had a timestamp: what {@code dedup-tools replay} needs to re-inject it. Two exceptions change what is
 * kept of the original:
 *
 * <ul>
 *   <li><b>Headers dropped at the source.</b> A record with more headers than {@code --max-headers}
 *       ({@code malformed}), or whose headers alone are more bytes than {@code --max-record-bytes}
 *       ({@code oversized}), is dead-lettered without any of its headers, and with {@link
 *       #DROPPED_HEADERS} saying how many it had; {@link #ERROR} gives the count or size and the option.
 *       (A record oversized by its key and value keeps its headers.)
 *   <li><b>Truncated to fit.</b> A dead letter is never larger than the dead-letter topic can take:
 *       the smaller of the topic's {@code max.message.bytes} (read from the brokers at start; 1 MiB if
 *       they cannot tell) and the producer's {@code max.request.size} ({@code kafka.max.request.size},
 *       2 MiB by default), minus a safety margin of 1 KiB + 1/128 of it for the batch framing and
 *       compression (sizes counted as Kafka's producer counts them: key, value, headers and record
 *       overhead). A dead letter that would be larger is written with its value cut to the first
 *       bytes that fit, and with {@link #TRUNCATED} {@code true}, {@link #ORIGINAL_SIZE} and {@link
 *       #PAYLOAD_SHA256} (of the whole original value: match it against the input topic). If the
 *       record's own headers leave no room for any value, they are dropped too ({@link
 *       #DROPPED_HEADERS}); if the key alone does not fit, it is cut the same way ({@link
 *       #ORIGINAL_KEY_SIZE}). The first dead letter that had to be truncated is logged by the sink.
 * </ul>
 *
 * <p>So a dead letter is a <b>faithful copy</b> of the original (key, value and headers whole) exactly
 * when it has neither {@link #DROPPED_HEADERS} nor {@link #TRUNCATED}; {@code dedup-tools replay}
 * re-injects no other unless told to ({@code --allow-incomplete}).
 *
 * All values are UTF-8 text; numbers in decimal.
 */
public final class DeadLetterHeaders {

    /** What every header name of the job starts with; a replay drops headers with it and keeps the record's own. */
    public static final String PREFIX = "dedup.";

    /** malformed, oversized, late or future-timestamp. */
    public static final String REASON = "dedup.reason";
    /** A short human-readable message. */
    public static final String ERROR = "dedup.error";
    public static final String SOURCE_TOPIC = "dedup.source.topic";
    public static final String SOURCE_PARTITION = "dedup.source.partition";
    public static final String SOURCE_OFFSET = "dedup.source.offset";
    /**
     * The original record's Kafka timestamp, epoch milliseconds, whatever its type (CreateTime or
     * LogAppendTime of the input topic); absent if it had none. Kept in a header because the dead
     * letter's own timestamp is overwritten by the broker where the dead-letter topic uses LogAppendTime.
     */
    public static final String SOURCE_TIMESTAMP = "dedup.source.timestamp";
    /** {@code true} on a dead letter whose value (and perhaps key or headers) was cut to fit the topic; absent otherwise. */
    public static final String TRUNCATED = "dedup.truncated";
    /** On a truncated dead letter: the original value's size in bytes ({@code -1} for a null value). */
    public static final String ORIGINAL_SIZE = "dedup.original-size";
    /** On a truncated dead letter: the SHA-256 of the whole original value, 64 lowercase hex digits (absent for a null value). */
    public static final String PAYLOAD_SHA256 = "dedup.payload-sha256";
    /**
     * On every dead letter that carries none of the original's headers although it had some: how many it
     * had (at least 1). Written where the source refused them (more than {@code --max-headers}, {@code
     * malformed}; headers alone over {@code --max-record-bytes}, {@code oversized}) and where they left no
     * room for the value in the dead-letter topic (then with {@link #TRUNCATED}). One marker for every way
     * headers are lost, so that a program tells a whole record from a stripped one by this name alone,
     * never by {@link #ERROR}'s words. Absent: every original header is there.
     */
    public static final String DROPPED_HEADERS = "dedup.dropped-headers";
    /** On a truncated dead letter whose key did not fit: the original key's size in bytes (the key is cut like the value). */
    public static final String ORIGINAL_KEY_SIZE = "dedup.original-key-size";

    private DeadLetterHeaders() {}
}
