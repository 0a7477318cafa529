package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.fingerprint.FingerprintSecret;
import io.impressiondedup.state.fingerprint.FingerprintSecretFile;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.util.TimeUtils;

/**
 * The dedup job's configuration, typed and validated: each value checked on its own by its option's
 * rule ({@link DedupJobOptions}), and here the combinations (a transaction that would time out between
 * checkpoints, topics that collide). Built by {@link #builder()} (programs, tests) or {@link #parse}
 * / {@link #fromSources} (the job's {@code main}); every failure names the option.
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
        DedupPlan plan = plan(options);
        FingerprintSecretFile secret = options.getOptional(FINGERPRINT_SECRET_FILE).map(DedupJobConfig::readSecretFile).orElse(null);
        parserSettings = parserSettings(options, secret);
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
                .pageCacheBytes(pageCacheBytes(options));
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
        description = describe(options, kafka, derivedIdentity);
        validateCombinations();
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

    /**
     * The Bloom filter plan of {@code options} (the {@link DedupJobOptions#PLAN} options, and whether {@code
     * --fingerprint-secret-file} is given: new filters then hash ad ids keyed): the one place that turns them into
     * a {@link DedupPlan}, for the job, the {@code plan} command and {@code bootstrap} alike.
     */
    public static DedupPlan plan(ReadableConfig options) {
        int shards = options.getOptional(SHARDS).orElse(options.get(MAX_PARALLELISM));
        TimeBuckets buckets = new TimeBuckets(options.get(BUCKET_SIZE), options.get(RETENTION), options.get(ALLOWED_LATENESS),
                ZoneId.of(options.get(ZONE)));
        try {
            return DedupPlan.builder()
                    .capacityPerBucket(options.get(CAPACITY))
                    .fpp(options.get(FPP))
                    .shards(shards)
                    .timeBuckets(buckets)
                    // With a secret, new filters hash ad ids with its key: unkeyed, crafted ad ids collide under every request.
                    .fingerprintScheme(FingerprintScheme.withKeyBits(options.get(KEY_BITS))
                            .withAdIdsKeyed(options.getOptional(FINGERPRINT_SECRET_FILE).isPresent()))
                    .pageBytes(options.getOptional(PAGE_BYTES).orElse(options.get(STATE_BACKEND).defaultPageBytes()))
                    .shardStateCap(options.get(SHARD_STATE_CAP))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("--" + CAPACITY.key() + " " + options.get(CAPACITY) + " with --" + SHARDS.key() + " " + shards
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * The parser's settings of {@code options}: the one place that turns the field options ({@code --dedup-key},
     * or {@code --request-id-field} and {@code --ad-id-field}; {@code --timestamp-field}) and the record limits into
     * {@link ParserSettings} (with the input format: {@link InputFormatOptions}), for the job and the {@code bootstrap} tool alike. Fails naming the options: a
     * {@code --dedup-key} given with an explicit request or ad id field (one of them would be ignored), and
     * fields that overlap (the same twice, or one inside another: no record could hold both).
     */
    public static ParserSettings parserSettings(Configuration options, FingerprintSecretFile secret) {
        FieldPath timestamp = fieldPath(TIMESTAMP_FIELD, options.get(TIMESTAMP_FIELD));
        List<FieldPath> key = new ArrayList<>();
        List<String> keyOptions = new ArrayList<>();
        Optional<List<String>> configuredKey = options.getOptional(DEDUP_KEY);
        if (configuredKey.isPresent()) {
            for (ConfigOption<String> field : List.of(REQUEST_ID_FIELD, AD_ID_FIELD)) {
                if (options.contains(field)) {
                    throw new InvalidOptionException("--" + DEDUP_KEY.key() + " and --" + field.key() + " exclude each other: --"
                            + DEDUP_KEY.key() + " replaces the (request id, ad id) identity, so give that field in --" + DEDUP_KEY.key()
                            + " (its first field is digested and shards the state)");
                }
            }
            for (String text : configuredKey.get()) {
                key.add(fieldPath(DEDUP_KEY, text));
                keyOptions.add("--" + DEDUP_KEY.key());
            }
        } else {
            key.add(fieldPath(REQUEST_ID_FIELD, options.get(REQUEST_ID_FIELD)));
            keyOptions.add("--" + REQUEST_ID_FIELD.key());
            key.add(fieldPath(AD_ID_FIELD, options.get(AD_ID_FIELD)));
            keyOptions.add("--" + AD_ID_FIELD.key());
        }
        for (int i = 0; i < key.size(); i++) {
            for (int j = i + 1; j < key.size(); j++) {
                if (key.get(i).overlaps(key.get(j))) {
                    throw new InvalidOptionException(overlap(keyOptions.get(i), key.get(i), keyOptions.get(j), key.get(j)));
                }
            }
            if (key.get(i).overlaps(timestamp)) {
                throw new InvalidOptionException(overlap(keyOptions.get(i), key.get(i), "--" + TIMESTAMP_FIELD.key(), timestamp));
            }
        }
        ParserSettings settings = configuredKey.isPresent()
                ? new ParserSettings(key, timestamp, options.get(MAX_RECORD_BYTES), options.get(MAX_FUTURE_SKEW),
                        Instant.parse(options.get(MIN_EVENT_TIME)))
                : new ParserSettings(options.get(REQUEST_ID_FIELD), options.get(AD_ID_FIELD), options.get(TIMESTAMP_FIELD),
                        options.get(MAX_RECORD_BYTES), options.get(MAX_FUTURE_SKEW), Instant.parse(options.get(MIN_EVENT_TIME)));
        return InputFormatOptions.apply(options, settings.withFingerprintSecret(secret), keyOptions); // --input-format, Avro options
    }

    private static FieldPath fieldPath(ConfigOption<?> option, String text) {
        try {
            return FieldPath.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid value '" + text + "' for --" + option.key() + ": " + e.getMessage(), e);
        }
    }

    private static String overlap(String option, FieldPath field, String otherOption, FieldPath other) {
        String where = option.equals(otherOption) ? option : option + " and " + otherOption;
        return "Invalid " + where + ": the fields '" + field + "' and '" + other + "' overlap (" + (field.equals(other)
                ? "the same field twice" : "one inside the other: no record can hold both") + ")";
    }

    /** The page-group cache's heap per subtask: {@code --page-cache-bytes}, else the state backend's default. */
    public static long pageCacheBytes(ReadableConfig options) {
        return options.getOptional(PAGE_CACHE_BYTES).map(org.apache.flink.configuration.MemorySize::getBytes)
                .orElse(options.get(STATE_BACKEND).defaultPageCacheBytes());
    }

    /**
     * The file {@code --fingerprint-secret-file} names, read here to validate it and take its check value: the job
     * carries only this, and its tasks read the file again where they open. Fails as {@link #readSecret}.
     */
    public static FingerprintSecretFile readSecretFile(String file) {
        return FingerprintSecretFile.of(file, readSecret(file));
    }

    /** The secret in the file {@code --fingerprint-secret-file} names; fails naming the option and the file, never the secret. */
    public static FingerprintSecret readSecret(String file) {
        try {
            return FingerprintSecret.read(java.nio.file.Path.of(file));
        } catch (java.io.IOException e) {
            throw new InvalidOptionException("Cannot read --" + FINGERPRINT_SECRET_FILE.key() + " " + file + ": " + e, e);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid --" + FINGERPRINT_SECRET_FILE.key() + " " + file + ": " + e.getMessage(), e);
        }
    }

    private void validateCombinations() {
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE && transactionTimeout.compareTo(checkpointInterval.multipliedBy(2)) < 0) {
            throw new InvalidOptionException("--" + TRANSACTION_TIMEOUT.key() + " " + transactionTimeout.toSeconds()
                    + "s must be at least twice --" + CHECKPOINT_INTERVAL.key() + " (" + checkpointInterval.toSeconds()
                    + "s): a transaction stays open from one checkpoint to the next, and Kafka aborts it at the timeout,"
                    + " losing its records.");
        }
        if (outputTopic.equals(inputTopic) || dlqTopic.equals(inputTopic)) {
            throw new InvalidOptionException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key()
                    + " must differ from --" + INPUT_TOPIC.key() + " (" + inputTopic + "): the job would read its own output");
        }
        if (outputTopic.equals(dlqTopic)) {
            throw new InvalidOptionException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key() + " must differ");
        }
        if (statsTopic != null && (statsTopic.equals(inputTopic) || statsTopic.equals(outputTopic) || statsTopic.equals(dlqTopic)
                || statsTopic.equals(duplicatesTopic))) {
            throw new InvalidOptionException("--" + STATS_TOPIC.key() + " " + statsTopic + " must differ from --" + INPUT_TOPIC.key()
                    + ", --" + OUTPUT_TOPIC.key() + ", --" + DLQ_TOPIC.key() + " and --" + DUPLICATES_TOPIC.key()
                    + ": its rows are JSON counts, not impressions");
        }
        if (dedupSettings.plan().shards() < maxParallelism) {
            org.slf4j.LoggerFactory.getLogger(DedupJobConfig.class).warn(
                    "--shards {} is below --max-parallelism {}: only {} key groups hold state, so parallelism above {} idles",
                    dedupSettings.plan().shards(), maxParallelism, dedupSettings.plan().shards(), dedupSettings.plan().shards());
        }
    }

    /** Every option with its effective value, one {@code name = value} per line, Kafka secrets redacted. */
    private static String describe(Configuration options, Map<String, String> kafka, String derivedIdentity) {
        StringBuilder sb = new StringBuilder();
        for (ConfigOption<?> option : ALL) {
            String unset = option == GROUP_ID || option == TRANSACTIONAL_ID_PREFIX
                    ? derivedIdentity + " (default, from --" + INPUT_TOPIC.key() + " and --" + OUTPUT_TOPIC.key() + ")"
                    : option.hasDefaultValue() ? format(option.defaultValue()) + " (default)" : "(not set)";
            String value = options.getOptional(option).map(DedupJobConfig::format).orElse(unset);
            sb.append("  ").append(option.key()).append(" = ").append(value).append('\n');
        }
        new TreeMap<>(kafka).forEach((property, value) ->
                sb.append("  ").append(KAFKA_PREFIX).append(property).append(" = ").append(KafkaSecrets.redact(property, value)).append('\n'));
        return sb.toString();
    }

    /** A value as the options take it: durations as {@code 2 d}, everything else by its {@code toString()}. */
    static String format(Object value) {
        return value instanceof Duration ? TimeUtils.formatWithHighestUnit((Duration) value) : String.valueOf(value);
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
            check(options, ALL);
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
                flinkConfiguration.getOptional(flinkOption).ifPresent(value -> options.setString(jobOption.key(), format(value)));
            }
        }
    }

    /** Types every given value of {@code accepted} and checks its rule; throws naming the first option at fault. */
    public static void check(Configuration options, Collection<ConfigOption<?>> accepted) {
        for (ConfigOption<?> option : accepted) {
            checkOne(options, option);
        }
    }

    private static <T> void checkOne(Configuration options, ConfigOption<T> option) {
        T value;
        try {
            value = options.getOptional(option).orElse(null);
        } catch (IllegalArgumentException e) {
            throw new InvalidOptionException("Invalid value '" + options.toMap().get(option.key()) + "' for --" + option.key()
                    + ": expected " + DedupJobOptions.expectation(option), e);
        }
        DedupJobOptions.Rule<T> rule = DedupJobOptions.ruleOf(option);
        if (value != null && rule != null && !rule.valid.test(value)) {
            String given = options.containsKey(option.key()) ? options.toMap().get(option.key()) : format(value) + " (the default)";
            throw new InvalidOptionException("Invalid value '" + given + "' for --" + option.key() + ": expected " + rule.expected);
        }
    }
}
