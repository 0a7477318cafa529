package io.impressiondedup.job;

import io.impressiondedup.state.cli.CommandLineOptions;
import io.impressiondedup.state.fingerprint.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.PlanCommand;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Every option of the dedup job, in one place, as typed {@code ConfigOption}s with a description and
 * default; given on the command line as {@code --name value} (or in a {@code --config} properties
 * file), listed by {@code --help}.
 */
public final class DedupJobOptions {

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = ConfigOptions.key("bootstrap-servers").stringType().noDefaultValue()
            .withDescription("Kafka bootstrap servers of the input, output and dead-letter topics.");
    public static final ConfigOption<String> INPUT_TOPIC = ConfigOptions.key("input-topic").stringType().noDefaultValue()
            .withDescription("Topic of JSON impressions to deduplicate.");
    public static final ConfigOption<String> OUTPUT_TOPIC = ConfigOptions.key("output-topic").stringType().noDefaultValue()
            .withDescription("Topic the first impression of each (request, ad) is written to, bytes unchanged.");
    public static final ConfigOption<String> DLQ_TOPIC = ConfigOptions.key("dlq-topic").stringType().noDefaultValue()
            .withDescription("Dead-letter topic: malformed, oversized, late and far-future records, with a dedup.reason header.");
    public static final ConfigOption<String> DUPLICATES_TOPIC = ConfigOptions.key("duplicates-topic").stringType().noDefaultValue()
            .withDescription("Optional audit topic for the dropped duplicates (off unless given).");
    public static final ConfigOption<String> GROUP_ID = ConfigOptions.key("group-id").stringType().defaultValue("impression-dedup")
            .withDescription("Kafka consumer group id (offsets are committed on checkpoints, for monitoring lag).");
    public static final ConfigOption<String> STARTING_OFFSETS = ConfigOptions.key("starting-offsets").stringType().defaultValue("committed")
            .withDescription("Where a job without state starts reading: committed (the group's offsets, else earliest), earliest or latest.");
    public static final ConfigOption<Boolean> BOUNDED = ConfigOptions.key("bounded").booleanType().defaultValue(false)
            .withDescription("Read up to the end offsets present at start, then finish: for backfills and tests.");

    public static final ConfigOption<Double> FPP = ConfigOptions.key("fpp").doubleType().defaultValue(DedupPlan.DEFAULT_FPP)
            .withDescription("End-to-end false-positive rate: the share of unique impressions wrongly dropped.");
    public static final ConfigOption<Long> CAPACITY = ConfigOptions.key("capacity").longType().noDefaultValue()
            .withDescription("Expected unique impressions per bucket (per day), over all shards. Traffic above it is"
                    + " absorbed by growing filters at the same FPP, at the cost of more state; see the plan command.");
    public static final ConfigOption<Duration> BUCKET_SIZE = ConfigOptions.key("bucket-size").durationType()
            .defaultValue(TimeBuckets.DEFAULT_BUCKET_SIZE)
            .withDescription("Event-time bucket size; divides a day or is whole days.");
    public static final ConfigOption<Duration> RETENTION = ConfigOptions.key("retention").durationType()
            .defaultValue(TimeBuckets.DEFAULT_RETENTION)
            .withDescription("How long after its event time an impression is remembered.");
    public static final ConfigOption<Duration> ALLOWED_LATENESS = ConfigOptions.key("allowed-lateness").durationType()
            .defaultValue(TimeBuckets.DEFAULT_ALLOWED_LATENESS)
            .withDescription("How far behind the watermark a record's event time may be and still be deduplicated normally"
                    + " (mobile and offline clients flush hours late). Each day of it keeps one more daily filter in state."
                    + " A record further behind is still checked against the live buckets; only a miss is late.");
    public static final ConfigOption<String> LATE_POLICY = ConfigOptions.key("late-policy").stringType().defaultValue("dead-letter")
            .withDescription("What happens to a late record that is not a copy of a live one: dead-letter (reason late),"
                    + " emit (forwarded with header dedup.late=true) or drop (counted only).");
    public static final ConfigOption<String> MIN_EVENT_TIME = ConfigOptions.key("min-event-time").stringType()
            .defaultValue(io.impressiondedup.job.io.ParserSettings.DEFAULT_MIN_EVENT_TIME.toString())
            .withDescription("Records dated before this ISO-8601 instant are dead-lettered as malformed: no impression is that"
                    + " old, and such a time would otherwise be a watermark hazard.");
    public static final ConfigOption<Boolean> RESET_LATENESS_WATERMARK = ConfigOptions.key("reset-lateness-watermark").booleanType()
            .defaultValue(false)
            .withDescription("On restore, forget the lateness watermark kept in the savepoint and judge lateness by the new"
                    + " run's watermark only. For recovering from a watermark pushed too far by bad data; records whose"
                    + " copies' buckets were already dropped then pass as new.");
    public static final ConfigOption<String> ZONE = ConfigOptions.key("zone").stringType().defaultValue("UTC")
            .withDescription("Time zone whose midnight bucket boundaries align to.");
    public static final ConfigOption<Integer> KEY_BITS = ConfigOptions.key("key-bits").intType()
            .defaultValue(FingerprintScheme.DEFAULT_KEY_BITS)
            .withDescription("Bits of MD5(requestId) kept as the request's identity, 32..128.");
    public static final ConfigOption<Integer> MAX_PARALLELISM = ConfigOptions.key("max-parallelism").intType().defaultValue(128)
            .withDescription("Flink max parallelism: the number of key groups, fixed for the life of the state.");
    public static final ConfigOption<Integer> SHARDS = ConfigOptions.key("shards").intType().noDefaultValue()
            .withDescription("Shards of the request-id hash; default: max parallelism, so each key group owns one shard."
                    + " Fixed for the life of the state.");
    public static final ConfigOption<Integer> PARALLELISM = ConfigOptions.key("parallelism").intType().noDefaultValue()
            .withDescription("Job parallelism (default: the cluster's).");
    public static final ConfigOption<Integer> PAGE_BYTES = ConfigOptions.key("page-bytes").intType().noDefaultValue()
            .withDescription("Bytes per Bloom state page, a power of two in [64, 65536]; applies to new buckets. Default:"
                    + " 256 with rocksdb (each record reads and writes one group of pages: small values are cheaper),"
                    + " 2048 with hashmap (fewer map entries: heap within 10% of the bits).");
    public static final ConfigOption<Duration> STATE_TTL = ConfigOptions.key("state-ttl").durationType().noDefaultValue()
            .withDescription("Processing-time safety TTL: a bucket is dropped this long after its creation if the"
                    + " watermark has not expired it (a watermark that stopped); 0 disables. Default: retention + bucket"
                    + " size + 7 days. An outage longer than this loses the dedup state of the buckets it spans.");

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS = ConfigOptions.key("max-out-of-orderness").durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription("Watermark delay behind the highest event time seen.");
    public static final ConfigOption<Duration> IDLENESS = ConfigOptions.key("idleness").durationType().defaultValue(Duration.ofMinutes(1))
            .withDescription("A partition without a valid impression for this long (nothing, or only dead letters) stops holding"
                    + " the watermark back; its next impression makes it count again.");
    public static final ConfigOption<Duration> MAX_FUTURE_SKEW = ConfigOptions.key("max-future-skew").durationType()
            .defaultValue(Duration.ofHours(1))
            .withDescription("Records dated further than this ahead of processing time are dead-lettered and do not move"
                    + " the watermark.");
    public static final ConfigOption<Integer> MAX_RECORD_BYTES = ConfigOptions.key("max-record-bytes").intType().defaultValue(64 * 1024)
            .withDescription("Larger records (key + value) are dead-lettered as oversized.");
    public static final ConfigOption<String> REQUEST_ID_FIELD = ConfigOptions.key("request-id-field").stringType().defaultValue("requestId")
            .withDescription("JSON field holding the request id (a string).");
    public static final ConfigOption<String> AD_ID_FIELD = ConfigOptions.key("ad-id-field").stringType().defaultValue("adId")
            .withDescription("JSON field holding the ad id (a string or an integer).");
    public static final ConfigOption<String> TIMESTAMP_FIELD = ConfigOptions.key("timestamp-field").stringType().defaultValue("ts")
            .withDescription("JSON field holding the event time: epoch milliseconds or an ISO-8601 string.");

    public static final ConfigOption<String> STATE_BACKEND = ConfigOptions.key("state-backend").stringType().defaultValue("rocksdb")
            .withDescription("rocksdb (incremental checkpoints; state larger than memory) or hashmap (state on the heap).");
    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = ConfigOptions.key("checkpoint-interval").durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("Checkpoint interval; output becomes visible to read_committed consumers at each checkpoint.");
    public static final ConfigOption<String> CHECKPOINT_DIR = ConfigOptions.key("checkpoint-dir").stringType().noDefaultValue()
            .withDescription("Checkpoint directory URI (file://, s3://, ...); default: the cluster's execution.checkpointing.dir.");
    public static final ConfigOption<String> DELIVERY = ConfigOptions.key("delivery").stringType().defaultValue("exactly-once")
            .withDescription("exactly-once (Kafka transactions committed on checkpoints) or at-least-once.");
    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX = ConfigOptions.key("transactional-id-prefix").stringType()
            .defaultValue("impression-dedup")
            .withDescription("Prefix of the sinks' Kafka transactional ids; unique per job on a Kafka cluster.");
    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT = ConfigOptions.key("transaction-timeout").durationType()
            .defaultValue(Duration.ofMinutes(15))
            .withDescription("Kafka transaction timeout of the exactly-once sinks: above the checkpoint interval, at most"
                    + " the brokers' transaction.max.timeout.ms (15 min by default).");

    public static final String KAFKA_PREFIX = "kafka.";

    public static final List<String> STATE_BACKENDS = List.of("rocksdb", "hashmap");

    /** Default page size per state backend; see {@link #PAGE_BYTES}. */
    public static int defaultPageBytes(String stateBackend) {
        return stateBackend.equals("rocksdb") ? 256 : DedupPlan.DEFAULT_PAGE_BYTES;
    }
    public static final List<String> DELIVERIES = List.of("exactly-once", "at-least-once");
    public static final List<String> LATE_POLICIES = List.of("dead-letter", "emit", "drop");
    public static final List<String> STARTING_OFFSET_MODES = List.of("committed", "earliest", "latest");

    static final CommandLineOptions OPTIONS = new CommandLineOptions("dedup-job",
                    "Deduplicates JSON ad impressions from a Kafka topic into another, exactly once, with time-bucketed Bloom"
                            + " filters in Flink keyed state.")
            .add(BOOTSTRAP_SERVERS, INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC, DUPLICATES_TOPIC, GROUP_ID, STARTING_OFFSETS, BOUNDED,
                    FPP, CAPACITY, BUCKET_SIZE, RETENTION, ALLOWED_LATENESS, LATE_POLICY, MIN_EVENT_TIME, RESET_LATENESS_WATERMARK, ZONE, KEY_BITS, MAX_PARALLELISM, SHARDS, PARALLELISM, PAGE_BYTES,
                    STATE_TTL, MAX_OUT_OF_ORDERNESS, IDLENESS, MAX_FUTURE_SKEW, MAX_RECORD_BYTES, REQUEST_ID_FIELD, AD_ID_FIELD,
                    TIMESTAMP_FIELD, STATE_BACKEND, CHECKPOINT_INTERVAL, CHECKPOINT_DIR, DELIVERY, TRANSACTIONAL_ID_PREFIX,
                    TRANSACTION_TIMEOUT)
            .required(BOOTSTRAP_SERVERS, INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC, CAPACITY)
            .require(STARTING_OFFSETS, STARTING_OFFSET_MODES::contains, "one of " + STARTING_OFFSET_MODES)
            .require(FPP, p -> p > 0 && p < 0.5, "a rate in (0, 0.5), e.g. 0.001")
            .require(CAPACITY, c -> c > 0, "a positive number of impressions per bucket")
            .require(BUCKET_SIZE, PlanCommand::isBucketSize, "a duration of at least 1min that divides a day or is whole days, e.g. 1d")
            .require(RETENTION, d -> d.toMillis() > 0, "a positive duration, e.g. 2d")
            .require(ALLOWED_LATENESS, d -> !d.isNegative(), "a non-negative duration, e.g. 1d (0: nothing behind the watermark is deduplicated)")
            .require(LATE_POLICY, LATE_POLICIES::contains, "one of " + LATE_POLICIES)
            .require(MIN_EVENT_TIME, DedupJobOptions::isInstant, "an ISO-8601 instant, e.g. 2000-01-01T00:00:00Z")
            .require(ZONE, z -> ZoneId.of(z) != null, "a time zone id such as UTC or Europe/Paris")
            .require(KEY_BITS, b -> b >= FingerprintScheme.MIN_KEY_BITS && b <= FingerprintScheme.MAX_KEY_BITS, "an integer in [32, 128]")
            .require(MAX_PARALLELISM, p -> p >= 1 && p <= 32768, "an integer in [1, 32768]")
            .require(SHARDS, s -> s >= 1, "a positive number of shards")
            .require(PARALLELISM, p -> p >= 1, "a positive parallelism")
            .require(PAGE_BYTES, b -> b >= 64 && b <= 65536 && Integer.bitCount(b) == 1, "a power of two in [64, 65536]")
            .require(STATE_TTL, d -> !d.isNegative(), "a duration, or 0 to disable")
            .require(MAX_OUT_OF_ORDERNESS, d -> !d.isNegative(), "a non-negative duration, e.g. 5min")
            .require(IDLENESS, d -> d.toMillis() > 0, "a positive duration, e.g. 1min")
            .require(MAX_FUTURE_SKEW, d -> !d.isNegative(), "a non-negative duration, e.g. 1h")
            .require(MAX_RECORD_BYTES, b -> b > 0, "a positive number of bytes")
            .require(REQUEST_ID_FIELD, f -> !f.isBlank(), "a JSON field name")
            .require(AD_ID_FIELD, f -> !f.isBlank(), "a JSON field name")
            .require(TIMESTAMP_FIELD, f -> !f.isBlank(), "a JSON field name")
            .require(STATE_BACKEND, STATE_BACKENDS::contains, "one of " + STATE_BACKENDS)
            .require(CHECKPOINT_INTERVAL, d -> d.toMillis() >= 1000, "at least 1s")
            .require(DELIVERY, DELIVERIES::contains, "one of " + DELIVERIES)
            .require(TRANSACTIONAL_ID_PREFIX, p -> !p.isBlank(), "a non-blank prefix")
            .require(TRANSACTION_TIMEOUT, d -> d.toMillis() > 0, "a positive duration")
            .addPassThrough(KAFKA_PREFIX, "Passed to every Kafka client of the job (security.protocol, sasl.*, ssl.*, ...);"
                    + " never logged in clear.");

    private static boolean isInstant(String value) {
        try {
            java.time.Instant.parse(value);
            return true;
        } catch (java.time.format.DateTimeParseException e) {
            return false;
        }
    }

    private DedupJobOptions() {}
}
