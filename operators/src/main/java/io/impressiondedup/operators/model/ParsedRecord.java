package io.impressiondedup.operators.model;

import org.apache.flink.api.common.typeinfo.TypeInformation;

/**
 * What the source emits for each Kafka record: an impression to deduplicate, or a dead letter. A
 * Kafka deserializer has one output, so both travel as this union until they are split.
 */
public final class ParsedRecord {

    public static final TypeInformation<ParsedRecord> TYPE_INFO =
            new ExplicitTypeInfo<>(ParsedRecord.class, ParsedRecordSerializer.INSTANCE);

    private final Impression impression;
    private final DeadLetter deadLetter;

    private ParsedRecord(Impression impression, DeadLetter deadLetter) {
        this.impression = impression;
        this.deadLetter = deadLetter;
    }

    public static ParsedRecord of(Impression impression) {
        return new ParsedRecord(java.util.Objects.requireNonNull(impression), null);
    }

    public static ParsedRecord of(DeadLetter deadLetter) {
        return new ParsedRecord(null, java.util.Objects.requireNonNull(deadLetter));
    }

    public boolean isImpression() {
        return impression != null;
    }

    /** The impression, or {@code null} for a dead letter. */
    public Impression impression() {
        return impression;
    }

    /** The dead letter, or {@code null} for an impression. */
    public DeadLetter deadLetter() {
        return deadLetter;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ParsedRecord
                && java.util.Objects.equals(impression, ((ParsedRecord) o).impression)
                && java.util.Objects.equals(deadLetter, ((ParsedRecord) o).deadLetter);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(impression, deadLetter);
    }

    @Override
    public String toString() {
        return isImpression() ? impression.toString() : deadLetter.toString();
    }
}
