package io.impressiondedup.testdata;

import java.nio.charset.StandardCharsets;

/**
 * One generated Kafka record and its ground truth.
 *
 * <p>{@code group} ties together the records of which exactly one must reach the output: a unique
 * impression and its copies within the retention share the original's sequence number; a copy beyond
 * the retention opens its own group. Dead-letter classes have no group ({@code -1}).
 */
public final class GeneratedRecord {

    public final long seq;
    public final RecordClass recordClass;
    /** The {@code dedup.reason} the job must give it, or {@code null} if it must not be dead-lettered. */
    public final String expectedReason;
    public final long group;
    /** Request id as written (empty if the record has none). */
    public final String requestId;
    /** Ad id as written (empty if the record has none). */
    public final String adId;
    /** Event time as written, or {@link Long#MIN_VALUE} if the record has no valid one. */
    public final long eventTime;
    public final byte[] key;
    public final byte[] value;
    /** Whether {@link #value} is a JSON object that a JSONL file can embed as is. */
    public final boolean valueIsJsonObject;

    public GeneratedRecord(
            long seq,
            RecordClass recordClass,
            String expectedReason,
            long group,
            String requestId,
            String adId,
            long eventTime,
            byte[] key,
            byte[] value,
            boolean valueIsJsonObject) {
        this.seq = seq;
        this.recordClass = recordClass;
        this.expectedReason = expectedReason;
        this.group = group;
        this.requestId = requestId;
        this.adId = adId;
        this.eventTime = eventTime;
        this.key = key;
        this.value = value;
        this.valueIsJsonObject = valueIsJsonObject;
    }

    /** The Kafka key of a record: its request id, so that the copies of an impression land in one partition. */
    public static byte[] keyOf(String requestId) {
        return requestId.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "GeneratedRecord{seq=" + seq + ", " + recordClass.label() + ", group=" + group + ", " + requestId + "/" + adId
                + " @" + eventTime + '}';
    }
}
