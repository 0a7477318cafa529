package io.impressiondedup.job.config;

import io.impressiondedup.job.io.avro.AvroImpressionFields;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.registry.SchemaRegistrySettings;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.apache.avro.Schema;

/**
 * What the source-side parser needs: the input format, where the key fields and the event time are, and the limits
 * that send a record to the dead letters. Travels in the job graph (Serializable), never in state. For Avro input it
 * carries the schema's text, read from {@code --avro-schema-file} where the options are parsed (client or
 * JobManager), so TaskManagers need no schema file. The fingerprint secret it does not carry, only its file's path and
 * check value ({@link FingerprintSecretFile}): the parser reads the secret where it opens, on the TaskManager, so that
 * the secret stays out of the serialized job graph and the HA store.
 */
public final class ParserSettings implements Serializable {

    private static final long serialVersionUID = 4L;

    public static final Instant DEFAULT_MIN_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    /** The fields of the identity, the first one digested and sharded ({@code io.impressiondedup.job.io.parsing.DedupKey}). */
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
    /** The secret keying the request-id digest ({@code --fingerprint-secret-file}); {@code null}: plain MD5. Set by {@link #withFingerprintSecret}. */
    private FingerprintSecretFile fingerprintSecretFile;
    /** How values are encoded ({@code --input-format}); set with the Avro settings by {@link #withAvro}. */
    private InputFormat inputFormat = InputFormat.JSON;
    /** With {@link InputFormat#AVRO}: the writer schema's text, the wire prefix, and the schema id the prefix must carry (or null). */
    private String avroSchemaText;
    private AvroWirePrefix avroWirePrefix;
    private Integer avroSchemaId;
    /** With {@link InputFormat#AVRO} and a registry: where each value's writer schema is fetched (then no schema text). */
    private SchemaRegistrySettings schemaRegistry;

    /** The default key: (request id, ad id) at these paths (top-level names or JSON Pointers, see {@link FieldPath}). */
    public ParserSettings(String requestIdField, String adIdField, String timestampField, int maxRecordBytes, Duration maxFutureSkew,
            Instant minEventTime) {
        this(List.of(FieldPath.parse(requestIdField), FieldPath.parse(adIdField)), true, FieldPath.parse(timestampField), maxRecordBytes,
                maxFutureSkew, minEventTime);
    }

    /**
     * A configured key ({@code --dedup-key}): the identity is {@code keyFields}, each a non-empty string or an integer.
     * The paths must not overlap one another nor the timestamp's ({@link ParserOptions} checks that, naming the options).
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

    /**
     * The key fields as JSON Pointers joined by {@code ;} ({@code /requestId;/adId} by default): what the dedup
     * state records of its identity rule, so that a restore under another key is refused. A top-level name and
     * its pointer ({@code requestId}, {@code /requestId}) describe one field.
     */
    public String keyDescription() {
        StringBuilder description = new StringBuilder();
        for (FieldPath field : keyFields) {
            description.append(description.length() == 0 ? "" : ";").append(FieldPath.pointer(field.tokens()));
        }
        return description.toString();
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

    /**
     * The file of the secret request-id digests are keyed with ({@code --fingerprint-secret-file}), or {@code null}:
     * the parser reads it where it opens ({@link FingerprintSecretFile#read}).
     */
    public FingerprintSecretFile fingerprintSecretFile() {
        return fingerprintSecretFile;
    }

    /** These settings with request-id digests keyed by the secret in {@code file} ({@code null}: unkeyed). */
    public ParserSettings withFingerprintSecret(FingerprintSecretFile file) {
        ParserSettings keyed = copy();
        keyed.fingerprintSecretFile = file;
        return keyed;
    }

    /**
     * These settings reading Avro: one record per value, binary encoded with the schema {@code schemaText} (an
     * {@code .avsc}), after {@code prefix}; with the confluent prefix, {@code schemaId} (if present) is the id a value
     * must carry. The schema is checked against the field paths by the parser's constructor, not here.
     */
    public ParserSettings withAvro(String schemaText, AvroWirePrefix prefix, OptionalInt schemaId) {
        ParserSettings avro = copy();
        avro.inputFormat = InputFormat.AVRO;
        avro.avroSchemaText = java.util.Objects.requireNonNull(schemaText, "schemaText");
        avro.avroWirePrefix = java.util.Objects.requireNonNull(prefix, "prefix");
        avro.avroSchemaId = schemaId.isPresent() ? schemaId.getAsInt() : null;
        return avro;
    }

    /**
     * These settings reading Avro whose writer schemas a registry holds: each value's schema is fetched by the id its
     * prefix carries ({@link io.impressiondedup.job.io.registry.WriterSchemas}), and read for these settings' field paths ({@link #avroFieldsFor}).
     */
    public ParserSettings withAvroRegistry(SchemaRegistrySettings registry) {
        ParserSettings avro = copy();
        avro.inputFormat = InputFormat.AVRO;
        avro.avroSchemaText = null;
        avro.avroSchemaId = null;
        avro.schemaRegistry = java.util.Objects.requireNonNull(registry, "registry");
        avro.avroWirePrefix = registry.prefix();
        return avro;
    }

    /** Where the Avro writer schemas are fetched, or null: every value is read with {@link #avroSchemaText()}. */
    public SchemaRegistrySettings schemaRegistry() {
        return schemaRegistry;
    }

    public InputFormat inputFormat() {
        return inputFormat;
    }

    /** The Avro writer schema's text, or null unless {@link #inputFormat()} is Avro. */
    public String avroSchemaText() {
        return avroSchemaText;
    }

    /** What precedes an Avro record in a value, or null unless {@link #inputFormat()} is Avro. */
    public AvroWirePrefix avroWirePrefix() {
        return avroWirePrefix;
    }

    /** The schema id an Avro value's confluent prefix must carry, if one was configured. */
    public OptionalInt avroSchemaId() {
        return avroSchemaId == null ? OptionalInt.empty() : OptionalInt.of(avroSchemaId);
    }

    /**
     * A reader of these settings' Avro schema for their field paths (the key fields and the event time): what the
     * parser reads with, and what the options' check at start builds once to find a schema that cannot hold a field.
     *
     * @throws IllegalArgumentException naming the path, if the schema is invalid or cannot hold a configured field
     * @throws IllegalStateException if the input format is not Avro
     */
    public AvroImpressionFields avroFields() {
        if (inputFormat != InputFormat.AVRO || schemaRegistry != null) {
            throw new IllegalStateException("the input format is " + inputFormat + (schemaRegistry != null ? " with a schema registry" : "")
                    + ", not avro with a schema file");
        }
        return new AvroImpressionFields(avroSchemaText, avroWirePrefix, avroSchemaId(), keyPaths(), timestampField.tokens());
    }

    /**
     * A reader of the record after the wire prefix, written with {@code writerSchema}, for these settings' field paths:
     * what the parser reads a registry's schema with ({@link io.impressiondedup.job.io.registry.WriterSchemas}).
     *
     * @throws IllegalArgumentException naming the path, if the schema cannot hold a configured field
     */
    public AvroImpressionFields avroFieldsFor(Schema writerSchema) {
        return new AvroImpressionFields(writerSchema, AvroWirePrefix.NONE, OptionalInt.empty(), keyPaths(), timestampField.tokens());
    }

    private List<List<String>> keyPaths() {
        return keyFields.stream().map(FieldPath::tokens).collect(Collectors.toList());
    }

    private ParserSettings copy() {
        ParserSettings copy = new ParserSettings(keyFields, stringRequestId, timestampField, maxRecordBytes,
                Duration.ofMillis(maxFutureSkewMillis), minEventTime);
        copy.fingerprintSecretFile = fingerprintSecretFile;
        copy.inputFormat = inputFormat;
        copy.avroSchemaText = avroSchemaText;
        copy.avroWirePrefix = avroWirePrefix;
        copy.avroSchemaId = avroSchemaId;
        copy.schemaRegistry = schemaRegistry;
        return copy;
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
