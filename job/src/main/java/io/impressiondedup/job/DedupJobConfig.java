package io.impressiondedup.job;

import static io.impressiondedup.job.DedupJobOptions.*;

import io.impressiondedup.job.io.ParserSettings;
import io.impressiondedup.operators.dedup.DedupSettings;
import io.impressiondedup.operators.dedup.LatePolicy;
import io.impressiondedup.state.cli.CommandLine;
import io.impressiondedup.state.cli.InvalidCommandLineException;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * The dedup job's configuration, typed and validated: each value checked on its own by the option
 * rules, and here the combinations (a transaction that would time out between checkpoints, topics
 * that collide).
 */
public final class DedupJobConfig implements Serializable {

    private static final long serialVersionUID = 1L;

    final String bootstrapServers;
    final String inputTopic;
    final String outputTopic;
    final String dlqTopic;
    final String duplicatesTopic;
    final String groupId;
    final String startingOffsets;
    final boolean bounded;
    final int maxParallelism;
    final Integer parallelism;
    final DedupSettings dedupSettings;
    final ParserSettings parserSettings;
    final Duration maxOutOfOrderness;
    final Duration idleness;
    final String stateBackend;
    final Duration checkpointInterval;
    final String checkpointDir;
    final DeliveryGuarantee delivery;
    final String transactionalIdPrefix;
    final Duration transactionTimeout;
    final Map<String, String> kafkaProperties;

    private DedupJobConfig(CommandLine cl) {
        bootstrapServers = cl.getRequired(BOOTSTRAP_SERVERS);
        inputTopic = cl.getRequired(INPUT_TOPIC);
        outputTopic = cl.getRequired(OUTPUT_TOPIC);
        dlqTopic = cl.getRequired(DLQ_TOPIC);
        duplicatesTopic = cl.getOptional(DUPLICATES_TOPIC).orElse(null);
        groupId = cl.get(GROUP_ID);
        startingOffsets = cl.get(STARTING_OFFSETS);
        bounded = cl.get(BOUNDED);
        maxParallelism = cl.get(MAX_PARALLELISM);
        parallelism = cl.getOptional(PARALLELISM).orElse(null);
        int shards = cl.getOptional(SHARDS).orElse(maxParallelism);
        TimeBuckets buckets = new TimeBuckets(cl.get(BUCKET_SIZE), cl.get(RETENTION), cl.get(ALLOWED_LATENESS), ZoneId.of(cl.get(ZONE)));
        DedupPlan plan;
        try {
            plan = DedupPlan.builder()
                    .capacityPerBucket(cl.getRequired(CAPACITY))
                    .fpp(cl.get(FPP))
                    .shards(shards)
                    .timeBuckets(buckets)
                    .fingerprintScheme(FingerprintScheme.withKeyBits(cl.get(KEY_BITS)))
                    .pageBytes(cl.getOptional(PAGE_BYTES).orElse(DedupJobOptions.defaultPageBytes(cl.get(STATE_BACKEND))))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new InvalidCommandLineException("--capacity " + cl.get(CAPACITY) + " with --shards " + shards + ": " + e.getMessage(), e);
        }
        DedupSettings.Builder settings = DedupSettings.builder()
                .plan(plan)
                .emitDuplicates(duplicatesTopic != null)
                .latePolicy(LatePolicy.fromOptionValue(cl.get(LATE_POLICY)))
                .resetLatenessWatermark(cl.get(RESET_LATENESS_WATERMARK));
        cl.getOptional(STATE_TTL).ifPresent(settings::stateTtl);
        try {
            dedupSettings = settings.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidCommandLineException("Invalid value for --" + STATE_TTL.key() + ": " + e.getMessage(), e);
        }
        parserSettings = new ParserSettings(cl.get(REQUEST_ID_FIELD), cl.get(AD_ID_FIELD), cl.get(TIMESTAMP_FIELD),
                cl.get(MAX_RECORD_BYTES), cl.get(MAX_FUTURE_SKEW), Instant.parse(cl.get(MIN_EVENT_TIME)));
        maxOutOfOrderness = cl.get(MAX_OUT_OF_ORDERNESS);
        idleness = cl.get(IDLENESS);
        stateBackend = cl.get(STATE_BACKEND);
        checkpointInterval = cl.get(CHECKPOINT_INTERVAL);
        checkpointDir = cl.getOptional(CHECKPOINT_DIR).orElse(null);
        delivery = cl.get(DELIVERY).equals("exactly-once") ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE;
        transactionalIdPrefix = cl.get(TRANSACTIONAL_ID_PREFIX);
        transactionTimeout = cl.get(TRANSACTION_TIMEOUT);
        kafkaProperties = new LinkedHashMap<>(cl.passThrough(KAFKA_PREFIX));
        validateCombinations();
    }

    /** The configuration of a parsed command line; fails naming the option(s) at fault. */
    public static DedupJobConfig from(CommandLine commandLine) {
        return new DedupJobConfig(commandLine);
    }

    /** Parses {@code args}; fails with an {@link InvalidCommandLineException} naming the option. */
    public static DedupJobConfig parse(String... args) {
        return from(OPTIONS.parse(args));
    }

    private void validateCombinations() {
        if (delivery == DeliveryGuarantee.EXACTLY_ONCE && transactionTimeout.compareTo(checkpointInterval.multipliedBy(2)) < 0) {
            throw new InvalidCommandLineException("--" + TRANSACTION_TIMEOUT.key() + " " + transactionTimeout.toSeconds()
                    + "s must be at least twice --" + CHECKPOINT_INTERVAL.key() + " (" + checkpointInterval.toSeconds()
                    + "s): a transaction stays open from one checkpoint to the next, and Kafka aborts it at the timeout,"
                    + " losing its records.");
        }
        if (outputTopic.equals(inputTopic) || dlqTopic.equals(inputTopic)) {
            throw new InvalidCommandLineException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key()
                    + " must differ from --" + INPUT_TOPIC.key() + " (" + inputTopic + "): the job would read its own output");
        }
        if (outputTopic.equals(dlqTopic)) {
            throw new InvalidCommandLineException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key() + " must differ");
        }
        if (dedupSettings.plan().shards() < maxParallelism) {
            org.slf4j.LoggerFactory.getLogger(DedupJobConfig.class).warn(
                    "--shards {} is below --max-parallelism {}: only {} key groups hold state, so parallelism above {} idles",
                    dedupSettings.plan().shards(), maxParallelism, dedupSettings.plan().shards(), dedupSettings.plan().shards());
        }
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

    public String groupId() {
        return groupId;
    }

    /** committed, earliest or latest. */
    public String startingOffsetsMode() {
        return startingOffsets;
    }

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

    public int maxParallelism() {
        return maxParallelism;
    }

    public Optional<Integer> parallelism() {
        return Optional.ofNullable(parallelism);
    }

    public java.time.Duration maxOutOfOrderness() {
        return maxOutOfOrderness;
    }

    public java.time.Duration idleness() {
        return idleness;
    }

    public String stateBackend() {
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
}
