package io.impressiondedup.job.io.registry;

import io.impressiondedup.job.io.avro.AvroWirePrefix;
import java.util.List;

/** Which of a registry's ids a value carries, and so which lookup answers it ({@link SchemaRegistryApi#lookupPath}). */
public enum SchemaIdKind {
    /** The 4-byte id of the {@link AvroWirePrefix#CONFLUENT} prefix: Confluent's schema id, Apicurio's content id. */
    FOUR_BYTE_ID,
    /** Apicurio's global id: of the {@link AvroWirePrefix#APICURIO} prefix, or the header {@value #GLOBAL_ID_HEADER}. */
    GLOBAL_ID,
    /** Apicurio's content id, of the header {@value #CONTENT_ID_HEADER}. */
    CONTENT_ID;

    /** Apicurio's header of the global id (an 8-byte big-endian long), {@link AvroWirePrefix#APICURIO_HEADERS}. */
    public static final String GLOBAL_ID_HEADER = "apicurio.value.globalId";
    /** Apicurio's header of the content id (an 8-byte big-endian long), {@link AvroWirePrefix#APICURIO_HEADERS}. */
    public static final String CONTENT_ID_HEADER = "apicurio.value.contentId";

    /** The kinds of id values of {@code prefix} may carry. */
    static List<SchemaIdKind> of(AvroWirePrefix prefix) {
        switch (prefix) {
            case CONFLUENT:
                return List.of(FOUR_BYTE_ID);
            case APICURIO:
                return List.of(GLOBAL_ID);
            case APICURIO_HEADERS:
                return List.of(GLOBAL_ID, CONTENT_ID);
            default:
                return List.of();
        }
    }
}
