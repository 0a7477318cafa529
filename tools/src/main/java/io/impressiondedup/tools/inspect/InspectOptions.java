package io.impressiondedup.tools.inspect;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import io.impressiondedup.tools.ToolOptions;

/**
 * The options of {@code dedup-tools inspect} that neither the job nor the other verbs have. The job's own
 * options it takes (time buckets, fingerprint secret, state backend) are {@link
 * io.impressiondedup.job.config.DedupJobOptions}; the savepoint and parallelism are {@link ToolOptions}.
 */
public final class InspectOptions {

    private InspectOptions() {}

    public static final ConfigOption<Boolean> PER_SHARD = ConfigOptions.key("per-shard").booleanType().defaultValue(false)
            .withDescription("Also list the figures of every shard's filter of every bucket, not only the summary per bucket."
                    + " Reads every page of the state: as long as a full read of the savepoint.");
    public static final ConfigOption<Boolean> JSON = ConfigOptions.key("json").booleanType().defaultValue(false)
            .withDescription("Print one JSON document on stdout instead of the readable tables.");
    public static final ConfigOption<String> REQUEST_ID = ConfigOptions.key("request-id").stringType().noDefaultValue()
            .withDescription("Query mode: the request id of one impression to look up (with --ad-id and --event-time). Prints"
                    + " whether the job restored from this savepoint would drop it as a DUPLICATE (and the bucket that holds"
                    + " it), pass it as NEW, or set it aside as LATE.");
    public static final ConfigOption<String> AD_ID = ConfigOptions.key("ad-id").stringType().noDefaultValue()
            .withDescription("Query mode: the ad id of the impression of --request-id.");
    public static final ConfigOption<String> EVENT_TIME = ConfigOptions.key("event-time").stringType().noDefaultValue()
            .withDescription("Query mode: the event time of the impression of --request-id, epoch milliseconds or ISO-8601"
                    + " (2024-05-01T12:00:00Z, 2024-05-01T14:00:00+02:00).");
    public static final ConfigOption<String> QUERY_FILE = ConfigOptions.key("query-file").stringType().noDefaultValue()
            .withDescription("Query mode: a CSV file of impressions to look up, one requestId,adId,eventTime per line (event"
                    + " time as for --event-time; a header line and double-quoted fields allowed). Answered inside the State"
                    + " Processor API job, each shard looking up its own queries: the state never leaves it.");
}
