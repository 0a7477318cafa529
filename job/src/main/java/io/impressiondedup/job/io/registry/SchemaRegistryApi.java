package io.impressiondedup.job.io.registry;

import io.impressiondedup.job.io.avro.AvroWirePrefix;
import java.util.Locale;

/**
 * The registry API a writer schema is fetched through, by the id a value's wire prefix carries. The URL given is the
 * API's base: {@code http://registry:8080/apis/ccompat/v7} (Apicurio's Confluent-compatible API) or a Confluent
 * Schema Registry's root for {@link #CONFLUENT}; {@code http://registry:8080/apis/registry/v3} (or {@code v2}) for
 * {@link #APICURIO}.
 */
public enum SchemaRegistryApi {
    /**
     * {@code GET <url>/schemas/ids/<id>}, answering {@code {"schema": "<the schema's text>", ...}}: the id of the
     * {@link AvroWirePrefix#CONFLUENT} prefix (in Apicurio, a content id).
     */
    CONFLUENT,
    /**
     * {@code GET <url>/ids/contentIds/<id>} for the 4-byte id of the {@link AvroWirePrefix#CONFLUENT} prefix (what
     * Apicurio's 3.x serializers write by default) and for a content id header, {@code GET <url>/ids/globalIds/<id>} for
     * the 8-byte id of the {@link AvroWirePrefix#APICURIO} prefix and for a global id header ({@link
     * AvroWirePrefix#APICURIO_HEADERS}); either answers the schema's text as it was registered.
     */
    APICURIO;

    /**
     * The path below the API's base URL that answers the schema of {@code id}, an id of {@code kind}.
     *
     * @throws IllegalArgumentException if this API cannot look up ids of {@code kind}
     */
    public String lookupPath(SchemaIdKind kind, long id) {
        String unsigned = Long.toUnsignedString(id);
        switch (kind) {
            case FOUR_BYTE_ID:
                return this == CONFLUENT ? "/schemas/ids/" + unsigned : "/ids/contentIds/" + unsigned;
            case GLOBAL_ID:
            case CONTENT_ID:
                if (this == APICURIO) {
                    return (kind == SchemaIdKind.GLOBAL_ID ? "/ids/globalIds/" : "/ids/contentIds/") + unsigned;
                }
                throw new IllegalArgumentException("Apicurio's " + (kind == SchemaIdKind.GLOBAL_ID ? "global" : "content")
                        + " ids (of the " + AvroWirePrefix.APICURIO + " and " + AvroWirePrefix.APICURIO_HEADERS + " wire prefixes) are"
                        + " looked up only by the " + APICURIO + " API, not the " + this + " API");
            default:
                throw new IllegalArgumentException("no lookup of " + kind);
        }
    }

    /** The option's spelling ({@code confluent}, {@code apicurio}); Flink matches it without regard to case. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
