package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.registry.SchemaRegistryApi;
import io.impressiondedup.job.io.registry.SchemaRegistrySettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * Turns {@code --avro-schema-registry-url} and the options beside it into {@link ParserSettings} that fetch each value's
 * writer schema ({@link ParserSettings#withAvroRegistry}), failing at start naming the option: a schema file or a pinned
 * schema id given too (the registry decides each value's schema), a wire prefix that carries no id or an id the API cannot
 * look up, a URL that is none, credentials over plain http, an unreadable credentials or certificates file. Both files are
 * read here, where the options are parsed; TaskManagers need neither.
 */
final class SchemaRegistryOptions {

    private SchemaRegistryOptions() {}

    static ParserSettings apply(Configuration options, ParserSettings settings) {
        String url = options.get(AVRO_SCHEMA_REGISTRY_URL);
        for (ConfigOption<?> excluded : new ConfigOption<?>[] {AVRO_SCHEMA_FILE, AVRO_SCHEMA_ID}) {
            if (options.contains(excluded)) {
                throw new InvalidOptionException("--" + excluded.key() + " and --" + AVRO_SCHEMA_REGISTRY_URL.key() + " exclude each other:"
                        + " with a registry, each value's schema is the one of the id it carries; remove --" + excluded.key());
            }
        }
        AvroWirePrefix prefix = options.get(AVRO_WIRE_PREFIX);
        if (!prefix.carriesSchemaId()) {
            throw new InvalidOptionException("--" + AVRO_SCHEMA_REGISTRY_URL.key() + " needs a --" + AVRO_WIRE_PREFIX.key() + " that carries"
                    + " the schema id (" + AvroWirePrefix.CONFLUENT + ", " + AvroWirePrefix.APICURIO + " or " + AvroWirePrefix.APICURIO_HEADERS
                    + "), but it is " + prefix);
        }
        SchemaRegistryApi api = options.get(AVRO_SCHEMA_REGISTRY_API);
        SchemaRegistrySettings.Builder registry = SchemaRegistrySettings.builder(url, api, prefix)
                .requestTimeout(options.get(AVRO_SCHEMA_REGISTRY_TIMEOUT));
        options.getOptional(AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE).ifPresent(file -> {
            String text = read(AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE, file).strip();
            int colon = text.indexOf(':');
            if (colon <= 0 || text.indexOf('\n') >= 0) {
                throw new InvalidOptionException("--" + AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE.key() + " " + file + " must hold one line"
                        + " user:password (a non-empty user before the first colon)");
            }
            registry.basicAuth(text.substring(0, colon), text.substring(colon + 1));
        });
        options.getOptional(AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES)
                .ifPresent(file -> registry.trustedCertificatesPem(read(AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES, file)));
        SchemaRegistrySettings built;
        try {
            built = registry.build();
        } catch (IllegalArgumentException e) {
            ConfigOption<?> at = e.getMessage().contains(" API") ? AVRO_SCHEMA_REGISTRY_API
                    : e.getMessage().contains("certificates") ? AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES : AVRO_SCHEMA_REGISTRY_URL;
            throw new InvalidOptionException("--" + at.key() + ": " + e.getMessage() + " (--" + AVRO_SCHEMA_REGISTRY_URL.key() + " " + url
                    + ", --" + AVRO_SCHEMA_REGISTRY_API.key() + " " + api + ", --" + AVRO_WIRE_PREFIX.key() + " " + prefix + ")", e);
        }
        return settings.withAvroRegistry(built);
    }

    private static String read(ConfigOption<String> option, String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException | InvalidPathException e) {
            throw new InvalidOptionException("Cannot read --" + option.key() + " " + file + ": " + e, e);
        }
    }
}
