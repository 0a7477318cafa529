package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.FingerprintSecretFile;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.Serializable;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * The dedup job's configuration, typed and validated: assembled from its sources, each value checked on its own by
 * its option's rule ({@link OptionValues}), the combinations by {@link OptionCombinations}; the state's plan ({@link
 * PlanOptions}) and the parser's settings ({@link ParserOptions}) built from their options. Built by {@link
 * #builder()} (programs, tests) or {@link #parse} / {@link #fromSources} (the job's {@code main}); every failure
 * names the option.
 *
 * <p><b>Flink's own keys.</b> Four job options have a Flink counterpart the job sets: {@code
 * --state-backend} ({@code state.backend.type}), {@code --checkpoint-interval} ({@code
 * execution.checkpointing.interval}), {@code --checkpoint-dir} ({@code execution.checkpointing.dir})
 * and {@code --max-parallelism} ({@code pipeline.max-parallelism}). The job option wins where it is
 * given (as an argument or as {@code dedup.<name>}); otherwise Flink's key is used if set; otherwise
 * the job option's default. So a cluster's {@code config.yaml} is obeyed unless the job is told
 * otherwise, and the job never silently overrides it with a default.
 */
public final class DedupJobConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String bootstrapServers;
    private final String inputTopic;
    private final String outputTopic;
    private final String dlqTopic;
    private final String duplicatesTopic;
    private final String statsTopic;
    private final Duration statsDelay;
    private final String groupId;
    private final StartingOffsets startingOffsets;
    private final boolean bounded;
    private final int maxParallelism;
    private final Integer parallelism;
    private final DedupSettings dedupSettings;
    private final ParserSettings parserSettings;
    private final int maxHeaders;
    private final Duration maxOutOfOrderness;
    private final Duration idleness;
    private final StateBackendType stateBackend;
    private final Duration checkpointInterval;
    private final String checkpointDir;
    private final DeliveryGuarantee delivery;
    private final String transactionalIdPrefix;
    private final Duration transactionTimeout;
    private final Map<String, String> kafkaProperties;
    /** Every option's effective value as text, secrets redacted, for the start-up log. */
    private final String description;

    private DedupJobConfig(Configuration options, Map<String, String> kafka) {
        bootstrapServers = options.get(BOOTSTRAP_SERVERS);
        inputTopic = options.get(INPUT_TOPIC);
        outputTopic = options.get(OUTPUT_TOPIC);
        dlqTopic = options.get(DLQ_TOPIC);
        duplicatesTopic = options.get(DUPLICATES_TOPIC);
        statsTopic = options.get(STATS_TOPIC);
        statsDelay = options.get(STATS_DELAY);
        String derivedIdentity = JobIdentity.derive(inputTopic, outputTopic);
        groupId = options.getOptional(GROUP_ID).orElse(derivedIdentity);
        startingOffsets = options.get(STARTING_OFFSETS);
        bounded = options.get(BOUNDED);
        maxParallelism = options.get(MAX_PARALLELISM);
        parallelism = options.get(PARALLELISM);
        stateBackend = options.get(STATE_BACKEND);
        DedupPlan plan = PlanOptions.plan(options);
        FingerprintSecretFile secret = options.getOptional(FINGERPRINT_SECRET_FILE).map(FingerprintSecretOption::readSecretFile).orElse(null);
        parserSettings = ParserOptions.parserSettings(options, secret);
        DedupSettings.Builder settings = DedupSettings.builder()
                .dedupKey(parserSettings.keyDescription())
                .allowDedupKeyChange(options.get(ALLOW_DEDUP_KEY_CHANGE))
                .allowRetentionIncrease(options.get(ALLOW_RETENTION_INCREASE))
                .plan(plan)
                .fingerprintCheck(secret == null ? FingerprintSecret.NO_SECRET : secret.checkValue()) // the operator gets the check value, never the secret
                .emitDuplicates(duplicatesTopic != null)
                .emitOutcomes(statsTopic != null)
                .latePolicy(options.get(LATE_POLICY))
                .resetLatenessWatermark(options.get(RESET_LATENESS_WATERMARK))
                .pageCacheBudget(PlanOptions.pageCacheBudget(options));
        options.getOptional(STATE_TTL).ifPresent(settings::stateTtl);
        try {
            dedupSettings = settings.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid value for --" + STATE_TTL.key() + ": " + e.getMessage(), e);
        }
        maxHeaders = options.get(MAX_HEADERS);
        maxOutOfOrderness = options.get(MAX_OUT_OF_ORDERNESS);
        idleness = options.get(IDLENESS);
        checkpointInterval = options.get(CHECKPOINT_INTERVAL);
        checkpointDir = options.get(CHECKPOINT_DIR);
        delivery = options.get(DELIVERY);
        transactionalIdPrefix = options.getOptional(TRANSACTIONAL_ID_PREFIX).orElse(derivedIdentity);
        transactionTimeout = options.get(TRANSACTION_TIMEOUT);
        kafkaProperties = Collections.unmodifiableMap(new LinkedHashMap<>(kafka));
        description = EffectiveOptions.describe(options, kafka, derivedIdentity);
        OptionCombinations.check(this);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The configuration of program arguments alone (no Flink configuration); fails naming the option. */
    public static DedupJobConfig parse(String... args) {
        return builder().arguments(args).build();
    }

    /** The configuration of Flink's configuration (keys under {@code dedup.}) and program arguments, the arguments winning. */
    public static DedupJobConfig fromSources(String[] args, ReadableConfig flinkConfiguration) {
        return builder().flinkConfiguration(flinkConfiguration).arguments(args).build();
    }

    /** The effective options, one {@code name = value} per line, Kafka secrets redacted: logged once at start. */
    public String describe() {
        return description;
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public String inputTopic() {
        return inputTopic;
    }

    public String outputTopic() {
        return outputTopic;
    }

    public String dlqTopic() {
        return dlqTopic;
    }

    public Optional<String> duplicatesTopic() {
        return Optional.ofNullable(duplicatesTopic);
    }

    /** The reconciliation stats topic ({@code --stats-topic}), or empty: then the job has no stats operators at all. */
    public Optional<String> statsTopic() {
        return Optional.ofNullable(statsTopic);
    }

    /** How far past an hour's end the watermark must be before the hour's complete stats row is written. */
    public Duration statsDelay() {
        return statsDelay;
    }

    /** The consumer group: {@code --group-id}, else derived from the topics ({@link JobIdentity}). */
    public String groupId() {
        return groupId;
    }

    public StartingOffsets startingOffsets() {
        return startingOffsets;
    }

    /** The sinks' transactional-id prefix: {@code --transactional-id-prefix}, else derived from the topics ({@link JobIdentity}). */
    public String transactionalIdPrefix() {
        return transactionalIdPrefix;
    }

    public boolean bounded() {
        return bounded;
    }

    public DedupSettings dedupSettings() {
        return dedupSettings;
    }

    public ParserSettings parserSettings() {
        return parserSettings;
    }

    /** Records with more headers are dead-lettered at the source ({@code --max-headers}). */
    public int maxHeaders() {
        return maxHeaders;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    public Optional<Integer> parallelism() {
        return Optional.ofNullable(parallelism);
    }

    public Duration maxOutOfOrderness() {
        return maxOutOfOrderness;
    }

    public Duration idleness() {
        return idleness;
    }

    public StateBackendType stateBackend() {
        return stateBackend;
    }

    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    public Optional<String> checkpointDir() {
        return Optional.ofNullable(checkpointDir);
    }

    public DeliveryGuarantee delivery() {
        return delivery;
    }

    public Duration transactionTimeout() {
        return transactionTimeout;
    }

    public Map<String, String> kafkaProperties() {
        return kafkaProperties;
    }

    /**
     * Builder of {@link DedupJobConfig}: values set by type ({@link #set}) or as text from the option
     * sources; {@link #build()} types, checks every rule and the combinations, and names the option at fault.
     */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();
        private final Map<String, String> kafka = new LinkedHashMap<>();
        private ReadableConfig flinkConfiguration = new Configuration();

        private Builder() {}

        /** Sets {@code option} to {@code value}. */
        public <T> Builder set(ConfigOption<T> option, T value) {
            Configuration typed = new Configuration();
            typed.set(option, value);
            values.putAll(typed.toMap());
            return this;
        }

        /** Sets the Kafka client property {@code property} (without the {@code kafka.} prefix). */
        public Builder kafkaProperty(String property, String value) {
            kafka.put(property, value);
            return this;
        }

        /** Program arguments ({@code --name value}, {@code --config file}, {@code --kafka.<property> value}); they win over earlier values. */
        public Builder arguments(String... args) {
            return putAll(OptionSources.fromArguments(args, ALL, true));
        }

        /**
         * Flink's configuration: the job's options under {@code dedup.} (overridden by values set before or
         * after on this builder), and Flink's own keys the job falls back on (see the class comment).
         */
        public Builder flinkConfiguration(ReadableConfig configuration) {
            this.flinkConfiguration = configuration;
            Map<String, String> fromFlink = OptionSources.fromFlinkConfiguration(configuration, ALL);
            Map<String, String> merged = new LinkedHashMap<>();
            Map<String, String> mergedKafka = new LinkedHashMap<>();
            split(fromFlink, merged, mergedKafka);
            merged.putAll(values);
            mergedKafka.putAll(kafka);
            values.clear();
            values.putAll(merged);
            kafka.clear();
            kafka.putAll(mergedKafka);
            return this;
        }

        private Builder putAll(Map<String, String> given) {
            split(given, values, kafka);
            return this;
        }

        private static void split(Map<String, String> given, Map<String, String> options, Map<String, String> kafkaProperties) {
            given.forEach((key, value) -> {
                if (key.startsWith(KAFKA_PREFIX)) {
                    kafkaProperties.put(key.substring(KAFKA_PREFIX.length()), value);
                } else {
                    options.put(key, value);
                }
            });
        }

        public DedupJobConfig build() {
            Configuration options = Configuration.fromMap(values);
            fallBackOnFlink(options, STATE_BACKEND, StateBackendOptions.STATE_BACKEND);
            fallBackOnFlink(options, CHECKPOINT_INTERVAL, CheckpointingOptions.CHECKPOINTING_INTERVAL);
            fallBackOnFlink(options, CHECKPOINT_DIR, CheckpointingOptions.CHECKPOINTS_DIRECTORY);
            fallBackOnFlink(options, MAX_PARALLELISM, PipelineOptions.MAX_PARALLELISM);
            OptionValues.check(options, ALL);
            for (ConfigOption<?> required : REQUIRED) {
                if (!options.contains(required)) {
                    throw new InvalidOptionException("Missing required option --" + required.key() + " (or "
                            + FLINK_CONFIG_PREFIX + required.key() + " in Flink's configuration): " + DedupJobOptions.descriptionOf(required)
                            + " Run with --help for the list.");
                }
            }
            return new DedupJobConfig(options, kafka);
        }

        /** Where the job option is not given, the value of Flink's own key, if set (see the class comment). */
        private <T> void fallBackOnFlink(Configuration options, ConfigOption<?> jobOption, ConfigOption<T> flinkOption) {
            if (!options.containsKey(jobOption.key())) {
                flinkConfiguration.getOptional(flinkOption).ifPresent(value -> options.setString(jobOption.key(), OptionValues.format(value)));
            }
        }
    }
}
