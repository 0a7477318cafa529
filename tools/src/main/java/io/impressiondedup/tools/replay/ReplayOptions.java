package io.impressiondedup.tools.replay;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The options of {@code replay} that neither the job nor the other verbs have. The Kafka connection
 * ({@code --bootstrap-servers}, {@code kafka.<property>}) and the dead-letter topic ({@code --dlq-topic})
 * are the job's own ({@link io.impressiondedup.job.config.DedupJobOptions}).
 */
public final class ReplayOptions {

    private ReplayOptions() {}

    public static final ConfigOption<String> REASON = ConfigOptions.key("reason").stringType().noDefaultValue()
            .withDescription("The dead-letter reasons to replay, comma-separated: malformed, oversized, late, future-timestamp"
                    + " (the dedup.reason header). Required: a replay re-injects what the job set aside, so say which.");
    public static final ConfigOption<String> SOURCE_TOPIC = ConfigOptions.key("source-topic").stringType().noDefaultValue()
            .withDescription("Replay only dead letters read from this input topic (dedup.source.topic). Default: any.");
    public static final ConfigOption<Integer> SOURCE_PARTITION = ConfigOptions.key("source-partition").intType().noDefaultValue()
            .withDescription("Replay only dead letters read from this input partition (dedup.source.partition). Default: any.");
    public static final ConfigOption<String> FROM_OFFSETS = ConfigOptions.key("from-offsets").stringType().noDefaultValue()
            .withDescription("Where to start reading the dead-letter topic, as partition:offset pairs, comma-separated"
                    + " (e.g. 0:1200,1:980); partitions not named are read from their beginning. Not with --from-time."
                    + " Default: the beginning of every partition.");
    public static final ConfigOption<String> FROM_TIME = ConfigOptions.key("from-time").stringType().noDefaultValue()
            .withDescription("Replay only dead letters whose timestamp in the dead-letter topic is at or after this instant"
                    + " (ISO-8601 with an offset, or epoch milliseconds); reading starts at the first offset of that time."
                    + " Not with --from-offsets.");
    public static final ConfigOption<String> UNTIL_TIME = ConfigOptions.key("until-time").stringType().noDefaultValue()
            .withDescription("Replay only dead letters whose timestamp in the dead-letter topic is before this instant (ISO-8601"
                    + " with an offset, or epoch milliseconds). Reading always ends at the end offsets found at start.");
    public static final ConfigOption<String> TO_TOPIC = ConfigOptions.key("to-topic").stringType().noDefaultValue()
            .withDescription("Write every replayed record to this topic. Default: each one's original topic (dedup.source.topic).");
    public static final ConfigOption<Boolean> DRY_RUN = ConfigOptions.key("dry-run").booleanType().defaultValue(false)
            .withDescription("Count what would be replayed, per reason, and write nothing.");
    public static final ConfigOption<Boolean> ALLOW_INCOMPLETE = ConfigOptions.key("allow-incomplete").booleanType().defaultValue(false)
            .withDescription("Replay also the selected dead letters that are not whole copies of their original, as they are:"
                    + " those without the original's headers (dedup.dropped-headers: written with none of them) and those cut to"
                    + " fit the dead-letter topic (dedup.truncated: written with only the first bytes of the value, perhaps of the"
                    + " key, and perhaps without headers). Each one is listed. Default: skip and list them, with the position of"
                    + " the original in the input topic (dedup.source.*).");
    public static final ConfigOption<String> TRANSACTIONAL_ID = ConfigOptions.key("transactional-id").stringType()
            .defaultValue("dedup-tools-replay")
            .withDescription("The transactional.id of the replay's producer: all replayed records are committed in one Kafka"
                    + " transaction, or none. A second replay with the same id fences a first one still running. Give one your"
                    + " ACLs allow (TransactionalId WRITE).");
}
