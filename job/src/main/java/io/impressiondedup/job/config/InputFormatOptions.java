package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.job.io.avro.AvroImpressionFields;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * Turns {@code --input-format} and the Avro options into {@link ParserSettings}, failing at start naming the options:
 * Avro options given for JSON input (whoever sets them believes they apply), Avro input without a readable, valid
 * {@code --avro-schema-file}, a schema id without the prefix that carries it, and a schema that cannot hold a
 * configured field (the reader names the path; this names the option that configured it). The schema file is read
 * here, where the options are parsed, and its text travels in the settings: TaskManagers need no file.
 */
final class InputFormatOptions {

    private InputFormatOptions() {}

    /** {@code settings} (JSON) for {@code options}' input format; {@code fieldOptions[i]} names the option of key field i. */
    static ParserSettings apply(Configuration options, ParserSettings settings, List<String> fieldOptions) {
        if (options.get(INPUT_FORMAT) == InputFormat.JSON) {
            List<String> given = given(options, AVRO_OPTIONS);
            if (!given.isEmpty()) {
                throw new InvalidOptionException(String.join(", ", given) + (given.size() == 1 ? " applies" : " apply") + " only with --"
                        + INPUT_FORMAT.key() + " avro, but the input format is " + InputFormat.JSON + ": set --" + INPUT_FORMAT.key()
                        + " avro, or remove " + (given.size() == 1 ? "it" : "them"));
            }
            return settings;
        }
        if (options.contains(AVRO_SCHEMA_REGISTRY_URL)) {
            return SchemaRegistryOptions.apply(options, settings);
        }
        List<String> registryOnly = given(options, AVRO_SCHEMA_REGISTRY_OPTIONS);
        if (!registryOnly.isEmpty()) {
            throw new InvalidOptionException(String.join(", ", registryOnly) + (registryOnly.size() == 1 ? " applies" : " apply")
                    + " only with --" + AVRO_SCHEMA_REGISTRY_URL.key() + ": set it, or remove " + (registryOnly.size() == 1 ? "it" : "them"));
        }
        String file = options.getOptional(AVRO_SCHEMA_FILE).orElseThrow(() -> new InvalidOptionException("--" + INPUT_FORMAT.key()
                + " avro needs --" + AVRO_SCHEMA_FILE.key() + " (the .avsc file of the schema the values are written with) or --"
                + AVRO_SCHEMA_REGISTRY_URL.key() + " (a registry that holds the schema of each value's id)"));
        AvroWirePrefix prefix = options.get(AVRO_WIRE_PREFIX);
        Optional<Integer> schemaId = options.getOptional(AVRO_SCHEMA_ID);
        if (schemaId.isPresent() && prefix != AvroWirePrefix.CONFLUENT) {
            throw new InvalidOptionException("--" + AVRO_SCHEMA_ID.key() + " " + schemaId.get() + " needs --" + AVRO_WIRE_PREFIX.key()
                    + " " + AvroWirePrefix.CONFLUENT + " (that prefix carries the id), but --" + AVRO_WIRE_PREFIX.key() + " is " + prefix);
        }
        String schemaText;
        try {
            schemaText = Files.readString(Path.of(file));
        } catch (IOException | InvalidPathException e) {
            throw new InvalidOptionException("Cannot read --" + AVRO_SCHEMA_FILE.key() + " " + file + ": " + e, e);
        }
        try {
            AvroImpressionFields.parse(schemaText);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid --" + AVRO_SCHEMA_FILE.key() + " " + file + ": " + e.getMessage(), e);
        }
        ParserSettings avro = settings.withAvro(schemaText, prefix, schemaId.map(OptionalInt::of).orElse(OptionalInt.empty()));
        try {
            avro.avroFields();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("--" + AVRO_SCHEMA_FILE.key() + " " + file + " does not fit " + optionsNamedIn(e.getMessage(),
                    avro, fieldOptions) + ": " + e.getMessage(), e);
        }
        return avro;
    }

    /** Those of {@code candidates} that {@code options} sets, as {@code --key}. */
    static List<String> given(Configuration options, List<ConfigOption<?>> candidates) {
        List<String> given = new ArrayList<>();
        for (ConfigOption<?> option : candidates) {
            if (options.contains(option)) {
                given.add("--" + option.key());
            }
        }
        return given;
    }

    /** The field options whose path the reader's message names (it names paths as JSON Pointers), else all of them. */
    private static String optionsNamedIn(String message, ParserSettings settings, List<String> fieldOptions) {
        List<String> named = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int i = 0; i < settings.keyFields().size(); i++) {
            add(named, all, message, fieldOptions.get(i), settings.keyFields().get(i));
        }
        add(named, all, message, "--" + TIMESTAMP_FIELD.key(), settings.timestampField());
        return String.join(", ", named.isEmpty() ? all : named);
    }

    private static void add(List<String> named, List<String> all, String message, String option, FieldPath field) {
        String described = option + " " + field;
        if (!all.contains(described)) {
            all.add(described);
        }
        String pointer = FieldPath.pointer(field.tokens());
        if (message != null && (message.contains(pointer + " ") || message.endsWith(pointer) || message.contains(pointer + ":")
                || message.contains(pointer + ",") || message.contains(pointer + ")")) && !named.contains(described)) {
            named.add(described);
        }
    }
}
