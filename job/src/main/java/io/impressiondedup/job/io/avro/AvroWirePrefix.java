package io.impressiondedup.job.io.avro;

/** What precedes the Avro binary record in a Kafka value. */
public enum AvroWirePrefix {
    /** The value is the record's binary encoding alone. */
    NONE,
    /**
     * The schema registry's wire format (Confluent's serializers, Apicurio in its compatible mode): a magic byte 0,
     * the writer schema's registry id as a 4-byte big-endian int, then the record.
     */
    CONFLUENT;

    /** The option's spelling ({@code --avro-wire-prefix none|confluent}); Flink matches it without regard to case. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The magic byte of {@link #CONFLUENT}. */
    static final byte CONFLUENT_MAGIC = 0;
    /** The length of {@link #CONFLUENT}'s prefix: magic byte and schema id. */
    static final int CONFLUENT_PREFIX_BYTES = 5;
}
