package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.registry.SchemaRegistryProbe;
import io.impressiondedup.job.io.registry.SchemaRegistrySettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema registry asked once before the job is submitted (Avro input with {@code --avro-schema-registry-url}), so
 * that options which could never fetch a schema fail now, naming the option: credentials refused (401, 403), a TLS
 * certificate not trusted, a URL that is not the API's base (any other status). A registry that does not answer is
 * logged as a warning and left to the job, which waits for it ({@code WriterSchemas}), as a broker that does not answer
 * is left to Kafka ({@link KafkaChecks}).
 */
public final class SchemaRegistryChecks {

    private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryChecks.class);

    private SchemaRegistryChecks() {}

    /** Checks the registry of {@code config}, if it reads one; fails naming the option at fault. */
    public static void atSubmission(DedupJobConfig config) throws InterruptedException {
        SchemaRegistrySettings registry = config.parserSettings().schemaRegistry();
        if (registry == null) {
            return;
        }
        SchemaRegistryProbe.Result result = SchemaRegistryProbe.probe(registry);
        String url = "--" + DedupJobOptions.AVRO_SCHEMA_REGISTRY_URL.key() + " " + registry.baseUrl();
        switch (result.outcome()) {
            case REACHED:
                LOG.info("Schema registry {} reached: {}", registry, result.detail());
                return;
            case REFUSED_CREDENTIALS:
                throw new InvalidOptionException("The schema registry at " + url + " refused the job's credentials (--"
                        + DedupJobOptions.AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE.key() + "): " + result.detail());
            case TLS_FAILED:
                throw new InvalidOptionException("No TLS connection to the schema registry at " + url + ": its certificate is not"
                        + " trusted (give its CA with --" + DedupJobOptions.AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES.key() + ")"
                        + " or it does not speak TLS: " + result.detail());
            case NOT_THE_API:
                throw new InvalidOptionException(url + " is not the base URL of a " + registry.api() + " API (--"
                        + DedupJobOptions.AVRO_SCHEMA_REGISTRY_API.key() + " " + registry.api() + "): " + result.detail());
            default:
                LOG.warn("The schema registry at {} does not answer now ({}); the job starts, and the records of each schema it has"
                        + " not fetched yet wait until the registry answers", url, result.detail());
        }
    }
}
