package io.impressiondedup.tools.bootstrap;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options of {@code bootstrap} that neither the job nor the other verbs have. The plan options
 * ({@code --capacity}, {@code --shards}, ...), the fingerprint secret, the record fields and the Kafka
 * connection are the job's own ({@link io.impressiondedup.job.config.DedupJobOptions}).
 */
public final class BootstrapOptions {

    private BootstrapOptions() {}

    public static final ConfigOption<String> FROM_FILE = ConfigOptions.key("from-file").stringType().noDefaultValue()
            .withDescription("The history as a CSV file of rows requestId,adId,timestamp (timestamp in epoch milliseconds or an"
                    + " ISO-8601 instant with an offset; an optional header line; fields may be double-quoted). Give this or"
                    + " --from-topic.");
    public static final ConfigOption<String> FROM_TOPIC = ConfigOptions.key("from-topic").stringType().noDefaultValue()
            .withDescription("The history as a Kafka topic of impressions (the job's output topic after lost checkpoints), read"
                    + " committed, from its earliest offsets to its end offsets at start, each record parsed as the job parses"
                    + " its input (--request-id-field, ...). Needs --bootstrap-servers; kafka.<property> options are passed to the"
                    + " consumer. Give this or --from-file.");
    public static final ConfigOption<String> AS_OF = ConfigOptions.key("as-of").stringType().noDefaultValue()
            .withDescription("The watermark the savepoint is written for, as an ISO-8601 instant or epoch milliseconds: rows whose"
                    + " bucket the job would already have dropped at it (bucket end + retention + allowed lateness <= as-of) are"
                    + " skipped and counted. Default: the newest timestamp in the history (read in a first pass).");
}
