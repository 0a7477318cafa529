package io.impressiondedup.job.io.avro;

/**
 * What precedes the Avro binary record in a Kafka value: nothing, or the id of the schema the record was written with,
 * as a schema registry's serializers write it.
 */
public enum AvroWirePrefix {
    /** The value is the record's binary encoding alone. */
    NONE(0),
    /**
     * The schema registry's wire format (Confluent's serializers; Apicurio's 3.x serializers by default, with the
     * schema's content id): a magic byte 0, the writer schema's registry id as a 4-byte big-endian int, then the record.
     */
    CONFLUENT(5),
    /**
     * Apicurio's own wire format (its 2.x serializers by default, 3.x with the 8-byte id handler): a magic byte 0, the
     * writer schema's global id as an 8-byte big-endian long, then the record.
     */
    APICURIO(9),
    /**
     * Apicurio's headers (its 2.x serializers' default; 3.x with headers enabled): the value is the record alone, and the
     * writer schema's id is in the record header {@code apicurio.value.globalId} (or {@code apicurio.value.contentId}), an
     * 8-byte big-endian long. Only with a schema registry.
     */
    APICURIO_HEADERS(0);

    /** The magic byte both registry prefixes begin with. */
    static final byte MAGIC = 0;

    private final int length;

    AvroWirePrefix(int length) {
        this.length = length;
    }

    /** The prefix's length in bytes: where the record begins. */
    public int length() {
        return length;
    }

    /** Whether the prefix (or, for {@link #APICURIO_HEADERS}, the headers) carries a schema id. */
    public boolean carriesSchemaId() {
        return this != NONE;
    }

    /** Whether the schema id is in the value's first bytes (not in its headers). */
    public boolean isInValue() {
        return length > 0;
    }

    /**
     * What is wrong with {@code value}'s prefix (its magic byte, or a value shorter than the prefix), or null. The value
     * is neither null nor empty.
     */
    public String check(byte[] value) {
        if (!isInValue()) {
            return null;
        }
        if (value[0] != MAGIC) {
            return String.format("wrong magic byte 0x%02X: the %s wire prefix begins with 0x00", value[0] & 0xFF, this);
        }
        if (value.length < length) {
            return "truncated: " + value.length + " bytes, shorter than the " + this + " wire prefix of " + length;
        }
        return null;
    }

    /** The schema id in {@code value}'s prefix, which {@link #check} found sound: unsigned for {@link #CONFLUENT}. */
    public long schemaId(byte[] value) {
        long id = 0;
        for (int i = 1; i < length; i++) {
            id = id << 8 | (value[i] & 0xFF);
        }
        return id;
    }

    /** The option's spelling ({@code --avro-wire-prefix none|confluent|apicurio|apicurio-headers}); Flink matches it without regard to case. */
    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
