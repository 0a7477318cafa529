package io.impressiondedup.job.config;

import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.registry.SchemaRegistryApi;
import io.impressiondedup.operators.dedup.LatePolicy;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * Every option of the dedup job, declared once: a typed {@code ConfigOption} with its default and
 * description, and beside it the rule its value must meet ({@link #declare(ConfigOption, Predicate, String)}).
 * The job, the {@code plan} command and the local run all read these.
 *
 * <p>Where values come from ({@link OptionSources}): program arguments {@code --name value}, a
 * properties file given by {@code --config}, and Flink's own configuration ({@code config.yaml},
 * {@code -D}, a FlinkDeployment's {@code flinkConfiguration}) under the prefix {@value
 * #FLINK_CONFIG_PREFIX}, e.g. {@code dedup.input-topic: impressions}; program arguments win over the
 * file, which wins over Flink's configuration. Kafka client properties are {@code kafka.<property>}
 * (program arguments: {@code --kafka.security.protocol SASL_SSL}; Flink configuration:
 * {@code dedup.kafka.security.protocol}).
 */
public final class DedupJobOptions {

    /** Prefix of the job's options in Flink's configuration. */
    public static final String FLINK_CONFIG_PREFIX = "dedup.";
    /** Prefix of Kafka client properties passed to every Kafka client of the job. */
    public static final String KAFKA_PREFIX = "kafka.";

    /** The options in declaration order, appended to by {@link #declare}; read once, into {@link #ALL}. */
    private static final List<ConfigOption<?>> DECLARED = new ArrayList<>();
    /** The rule of each option that has one, by key, made by {@link #declare} beside the option. */
    private static final Map<String, Rule<?>> RULES = new LinkedHashMap<>();
    /** What a field option takes ({@link FieldPath}). */
    private static final String FIELD_PATH = "a top-level JSON field name, or a JSON Pointer into objects such as /imp/requestId"
            + " (no empty token; '~' only as ~0 or ~1)";

    public static final ConfigOption<String> BOOTSTRAP_SERVERS = declare(ConfigOptions.key("bootstrap-servers").stringType().noDefaultValue()
            .withDescription("Kafka bootstrap servers of the input, output and dead-letter topics."),
            s -> !s.isBlank(), "host:port[,host:port...]");
    public static final ConfigOption<String> INPUT_TOPIC = declare(ConfigOptions.key("input-topic").stringType().noDefaultValue()
            .withDescription("Topic of JSON impressions to deduplicate."));
    public static final ConfigOption<String> OUTPUT_TOPIC = declare(ConfigOptions.key("output-topic").stringType().noDefaultValue()
            .withDescription("Topic the first impression of each (request, ad) is written to, bytes unchanged."));
    public static final ConfigOption<String> DLQ_TOPIC = declare(ConfigOptions.key("dlq-topic").stringType().noDefaultValue()
            .withDescription("Dead-letter topic: malformed, oversized, late and far-future records, with a dedup.reason header."));
    public static final ConfigOption<String> DUPLICATES_TOPIC = declare(ConfigOptions.key("duplicates-topic").stringType().noDefaultValue()
            .withDescription("Optional audit topic for the dropped duplicates (off unless given)."));

    // Reconciliation stats: the rows of docs/RECONCILIATION.md, rule in HourlyStats.
    public static final ConfigOption<String> STATS_TOPIC = declare(ConfigOptions.key("stats-topic").stringType().noDefaultValue()
            .withDescription("Optional topic of reconciliation rows: per event-time hour (UTC) and input partition, the counts of"
                    + " input, unique, duplicates, late and dead-lettered, each row written exactly once when the watermark passes"
                    + " the hour's end plus --stats-delay (the hour's complete row), records of the hour arriving later in amendment"
                    + " rows (at most one per partition and hour per hour of watermark progress). Billing sums the rows of a"
                    + " (topic, partition, hour); docs/RECONCILIATION.md has the row format. Off unless given: no stats operator at all."),
            t -> !t.isBlank(), "a Kafka topic name");
    public static final ConfigOption<Duration> STATS_DELAY = declare(ConfigOptions.key("stats-delay").durationType().defaultValue(Duration.ZERO)
            .withDescription("How far past an hour's end the watermark must be before the hour's complete row is written to"
                    + " --stats-topic: a longer delay puts more late records in the complete row and fewer in amendments."),
            d -> !d.isNegative(), "a non-negative duration, e.g. 0 or 2h");
    public static final ConfigOption<String> GROUP_ID = declare(ConfigOptions.key("group-id").stringType().noDefaultValue()
            .withDescription("Kafka consumer group id: offsets are committed to it on checkpoints (for monitoring lag), and a job"
                    + " started without state with --starting-offsets committed starts from them. Unique per job on a Kafka cluster,"
                    + " and stable across restarts. Default: derived from --input-topic and --output-topic, "
                    + JobIdentity.describeDerivation() + "."),
            g -> !g.isBlank(), "a non-blank consumer group id");
    public static final ConfigOption<StartingOffsets> STARTING_OFFSETS = declare(ConfigOptions.key("starting-offsets")
            .enumType(StartingOffsets.class).defaultValue(StartingOffsets.COMMITTED)
            .withDescription("Where a job without state starts reading: committed (the group's offsets, else earliest), earliest or latest."));
    public static final ConfigOption<Boolean> BOUNDED = declare(ConfigOptions.key("bounded").booleanType().defaultValue(false)
            .withDescription("Read up to the end offsets present at the first start, then finish: for backfills and tests. A run resumed"
                    + " from a savepoint, at any parallelism, reads up to the same end offsets and finishes too."));

    public static final ConfigOption<Long> CAPACITY = declare(ConfigOptions.key("capacity").longType().noDefaultValue()
            .withDescription("Expected unique impressions per bucket (per day), over all shards. Traffic above it is"
                    + " absorbed by growing filters at the same FPP, at the cost of more state; see the plan command."),
            c -> c > 0, "a positive number of impressions per bucket");
    public static final ConfigOption<Double> FPP = declare(ConfigOptions.key("fpp").doubleType().defaultValue(DedupPlan.DEFAULT_FPP)
            .withDescription("End-to-end false-positive rate: the most a unique impression is wrongly dropped with, however full"
                    + " the buckets it is checked against (each gets a share). For billing with --state-format fingerprints set it"
                    + " about 200 times lower than the rate you would give Bloom filters, to the FPP at which the fingerprints take"
                    + " the Bloom format's bytes (5e-6 for 0.001; the plan command prints it): at 22 bits per impression they then"
                    + " drop 1.1, 1.8, 2.2 and 2.6 genuine impressions per million on days at 50%, 80%, 100% and 200% of plan, where"
                    + " Bloom filters at 0.001 drop 1.1, 40, 210 and 256."),
            p -> p > 0 && p < 0.5, "a rate in (0, 0.5), e.g. 0.001");
    public static final ConfigOption<Duration> BUCKET_SIZE = declare(ConfigOptions.key("bucket-size").durationType()
            .defaultValue(TimeBuckets.DEFAULT_BUCKET_SIZE)
            .withDescription("Event-time bucket size; divides a day or is whole days."),
            TimeBuckets::isBucketSize, "a duration of at least 1min that divides a day or is whole days, e.g. 1d");
    public static final ConfigOption<Duration> RETENTION = declare(ConfigOptions.key("retention").durationType()
            .defaultValue(TimeBuckets.DEFAULT_RETENTION)
            .withDescription("Copies whose event times are at most this far apart are duplicates."),
            d -> d.toMillis() > 0, "a positive duration, e.g. 2d");
    public static final ConfigOption<Duration> ALLOWED_LATENESS = declare(ConfigOptions.key("allowed-lateness").durationType()
            .defaultValue(TimeBuckets.DEFAULT_ALLOWED_LATENESS)
            .withDescription("How far behind the watermark a record's event time may be and still be deduplicated normally"
                    + " (mobile and offline clients flush hours late). Each day of it keeps one more daily filter in state."
                    + " A record further behind is still checked against the live buckets; only a miss is late."),
            d -> !d.isNegative(), "a non-negative duration, e.g. 1d (0: nothing behind the watermark is deduplicated)");
    public static final ConfigOption<String> ZONE = declare(ConfigOptions.key("zone").stringType().defaultValue("UTC")
            .withDescription("Time zone whose midnight bucket boundaries align to."),
            DedupJobOptions::isZone, "a time zone id such as UTC, +02:00 or Europe/Paris");
    public static final ConfigOption<Integer> KEY_BITS = declare(ConfigOptions.key("key-bits").intType()
            .defaultValue(FingerprintScheme.DEFAULT_KEY_BITS)
            .withDescription("Bits of MD5(requestId) kept as the request's identity, 32..128."),
            b -> b >= FingerprintScheme.MIN_KEY_BITS && b <= FingerprintScheme.MAX_KEY_BITS, "an integer in [32, 128]");
    public static final ConfigOption<String> FINGERPRINT_SECRET_FILE = declare(ConfigOptions.key("fingerprint-secret-file").stringType()
            .noDefaultValue()
            .withDescription("File holding a secret (16 to 1024 bytes, one trailing newline ignored; make one with openssl rand -hex 32)"
                    + " that keys the digest of every request id, so that crafted request and ad ids cannot aim at a shard or at"
                    + " Bloom filter bits. It changes which shard every request maps to, so it applies to fresh state only: a restore"
                    + " onto state written with another secret, without one, or (without this option) with one fails. Keep the file"
                    + " the same for the life of the state. The file must be at this path on the client, the JobManager and every"
                    + " TaskManager: the job carries only the path and a check value, and each source task reads the file where it"
                    + " opens. The path is logged, never the secret; the state keeps only a check value."
                    + " Default: none (the digest is MD5 of the request id)."),
            f -> !f.isBlank(), "the path of a file holding 16 to 1024 bytes of secret");
    public static final ConfigOption<Integer> MAX_PARALLELISM = declare(ConfigOptions.key("max-parallelism").intType().defaultValue(128)
            .withDescription("Flink max parallelism: the number of key groups, fixed for the life of the state."),
            p -> p >= 1 && p <= 32768, "an integer in [1, 32768]");
    public static final ConfigOption<Integer> SHARDS = declare(ConfigOptions.key("shards").intType().noDefaultValue()
            .withDescription("Shards of the request-id hash; default: max parallelism, so each key group owns one shard."
                    + " Fixed for the life of the state."),
            s -> s >= 1, "a positive number of shards");
    public static final ConfigOption<Integer> PAGE_BYTES = declare(ConfigOptions.key("page-bytes").intType().noDefaultValue()
            .withDescription("Bytes per Bloom state page, a power of two in [64, 65536]; applies to new buckets. Default:"
                    + " 256 with rocksdb (each record reads and writes one group of pages: small values are cheaper),"
                    + " 2048 with hashmap (fewer map entries: heap within 10% of the bits)."),
            b -> b >= 64 && b <= 65536 && Integer.bitCount(b) == 1, "a power of two in [64, 65536]");
    public static final ConfigOption<MemorySize> PAGE_CACHE_BYTES = declare(ConfigOptions.key("page-cache-bytes").memoryType().noDefaultValue()
            .withDescription("Task heap per dedup subtask for a write-back cache of Bloom page groups in front of the state"
                    + " backend; 0 turns it off. A hit costs no state access; dirty groups are written back when evicted and"
                    + " before every checkpoint barrier, so the state and its format are the same with or without it. A cached"
                    + " group is one page index of a shard's live buckets, in one array: 16 B object + 16 B array header +"
                    + " 8 x (1 + 2n) B of count, owners and lengths + n x page-bytes + 48 B of cache entry, n = live buckets;"
                    + " with the defaults (256 B pages, 5 live buckets) 1,448 B, so 64 MiB hold 46,345 groups on plan (more,"
                    + " smaller ones while fewer buckets are live: the cache is bounded by its bytes): 2,048 Bloom bits per"
                    + " bucket each, about 142 impressions per bucket at FPP 0.001, i.e. the pages of about 6.6M impressions"
                    + " per bucket (33M live) per subtask; the plan command prints it for a plan. While the restored state holds buckets of"
                    + " both state formats (a change of --state-format), each format's pages get half. Default with rocksdb (where a miss is a JNI"
                    + " read and a write a JNI put: most of the operator's time): three quarters of each slot's task heap"
                    + " (taskmanager.memory.task.heap.size / numberOfTaskSlots, read where the subtask runs), so the state is"
                    + " served from memory wherever the TaskManager has it: 72 MiB on Flink's default 1728m TaskManager with 4"
                    + " slots, 288 MiB with 1. Default with hashmap: 0 (state is heap objects already; the cache must keep its"
                    + " own copies there, so each cached group is held twice). With rocksdb, behind this heap cache, the pages it"
                    + " evicts are kept serialized in the operator's share of its slot's managed memory (half a slot's with Flink's"
                    + " default consumer weights, RocksDB getting the other half: 64 MiB on the default TaskManager with 4 slots),"
                    + " whatever this option says; only what that tier evicts, and the checkpoints, reach RocksDB."),
            b -> b.getBytes() < (1L << 40), "a heap size such as 64mb, or 0 to turn the cache off");
    public static final ConfigOption<Double> SHARD_STATE_CAP = declare(ConfigOptions.key("shard-state-cap").doubleType()
            .defaultValue(DedupPlan.DEFAULT_SHARD_STATE_CAP)
            .withDescription("The most state one shard may hold, as a multiple of its planned state (the plan command prints"
                    + " both), in either state format. A bucket over plan grows (Bloom: by layers; fingerprints: by bands) at the same"
                    + " FPP while its shard stays under the cap; past it the shard stops growing and trades its FPP for memory (Bloom"
                    + " filters over-fill; fingerprints go to an overflow section no larger than the bucket's planned state), other"
                    + " shards unaffected (metric capped-insertions, alert ImpressionDedupShardStateCapReached). The default 8 lets one"
                    + " bucket run 15x (fingerprints 16x), or the four buckets held most of the day 7x (fingerprints: three at 8x), over"
                    + " plan at the configured FPP; it stops one request id with millions of ad ids (all in one shard) from growing"
                    + " that shard without bound."),
            c -> c > 0, "a positive multiple of a shard's planned state, e.g. 8");
    public static final ConfigOption<StateFormat> STATE_FORMAT = declare(ConfigOptions.key("state-format").enumType(StateFormat.class)
            .defaultValue(StateFormat.BLOOM)
            .withDescription("How new time buckets store their impressions: bloom (scalable blocked Bloom filters, about 22 bits"
                    + " per unique impression at FPP 0.001 on plan, 44 at 4x over plan; the fastest) or fingerprints (Elias-Fano"
                    + " coded fingerprints, about 14.7 bits on plan and 18.2 at 4x, an exact count per bucket, reshape to fewer shards;"
                    + " about the same throughput, 1-3% more CPU per record; see docs/SCALING.md). Both keep the configured FPP."
                    + " For billing, where every false positive is a genuine impression dropped, pick bloom at a given --fpp: below"
                    + " plan a Bloom filter's FPP falls as a power of its fill and a fingerprint bucket's only linearly, so at FPP"
                    + " 0.001 Bloom drops 1.1 genuine impressions per million on a day at half the plan against 225, 40 against 360"
                    + " at 80% and 210 against 450 at plan (the plan command prints both for a plan); or pick fingerprints with a"
                    + " lower --fpp (see --fpp). It applies to buckets created from now on: a restore"
                    + " with the other format keeps each restored bucket in its own format until it expires, so a switch either"
                    + " way needs no migration. State holding fingerprint buckets is bucket-filters format version 3 or later: a"
                    + " job that reads versions 1 and 2 only refuses it, naming the version."));
    public static final ConfigOption<Duration> STATE_TTL = declare(ConfigOptions.key("state-ttl").durationType().noDefaultValue()
            .withDescription("Processing-time safety TTL: a bucket is dropped this long after its creation if the"
                    + " watermark has not expired it (a watermark that stopped); 0 disables. Default: retention + allowed"
                    + " lateness + bucket size + 7 days. An outage longer than this loses the dedup state of the buckets it spans."),
            d -> !d.isNegative(), "a duration, or 0 to disable");
    public static final ConfigOption<LatePolicy> LATE_POLICY = declare(ConfigOptions.key("late-policy").enumType(LatePolicy.class)
            .defaultValue(LatePolicy.DEAD_LETTER)
            .withDescription("What happens to a late record that is not a copy of a live one: dead-letter (reason late),"
                    + " emit (forwarded with header dedup.late=true) or drop (counted only)."));
    public static final ConfigOption<Boolean> RESET_LATENESS_WATERMARK = declare(ConfigOptions.key("reset-lateness-watermark").booleanType()
            .defaultValue(false)
            .withDescription("On restore, forget the lateness watermark kept in the savepoint and judge lateness by the new"
                    + " run's watermark only. For recovering from a watermark pushed too far by bad data; records whose"
                    + " copies' buckets were already dropped then pass as new."));

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS = declare(ConfigOptions.key("max-out-of-orderness").durationType()
            .defaultValue(Duration.ofMinutes(5))
            .withDescription("Watermark delay behind the highest event time seen."),
            d -> !d.isNegative(), "a non-negative duration, e.g. 5min");
    public static final ConfigOption<Duration> IDLENESS = declare(ConfigOptions.key("idleness").durationType().defaultValue(Duration.ofMinutes(1))
            .withDescription("A partition without a valid impression for this long (nothing, or only dead letters) stops holding"
                    + " the watermark back; its next impression makes it count again."),
            d -> d.toMillis() > 0, "a positive duration, e.g. 1min");
    public static final ConfigOption<Duration> MAX_FUTURE_SKEW = declare(ConfigOptions.key("max-future-skew").durationType()
            .defaultValue(Duration.ofHours(1))
            .withDescription("Records dated further than this ahead of processing time are dead-lettered and do not move"
                    + " the watermark."),
            d -> !d.isNegative(), "a non-negative duration, e.g. 1h");
    public static final ConfigOption<String> MIN_EVENT_TIME = declare(ConfigOptions.key("min-event-time").stringType()
            .defaultValue(ParserSettings.DEFAULT_MIN_EVENT_TIME.toString())
            .withDescription("Records dated before this ISO-8601 instant are dead-lettered as malformed: no impression is that"
                    + " old, and such a time would otherwise be a watermark hazard."),
            DedupJobOptions::isInstant, "an ISO-8601 instant, e.g. 2000-01-01T00:00:00Z");
    public static final ConfigOption<Integer> MAX_RECORD_BYTES = declare(ConfigOptions.key("max-record-bytes").intType().defaultValue(64 * 1024)
            .withDescription("Larger records (key + value + header keys and values) are dead-lettered as oversized (without"
                    + " their headers, counted in dedup.dropped-headers, if those alone are larger)."),
            b -> b > 0, "a positive number of bytes");
    public static final ConfigOption<Integer> MAX_HEADERS = declare(ConfigOptions.key("max-headers").intType().defaultValue(64)
            .withDescription("Records with more Kafka headers are dead-lettered as malformed, without their headers (counted in"
                    + " dedup.dropped-headers). An"
                    + " impression carries a handful (tracing, schema id, producer metadata); thousands are an attack or a bug,"
                    + " and every header is copied through the job."),
            h -> h >= 0 && h <= RawKafkaRecord.MAX_ADMITTED_HEADERS, "an integer in [0, " + RawKafkaRecord.MAX_ADMITTED_HEADERS + "] (the record format carries at most " + RawKafkaRecord.MAX_HEADERS + " headers, some kept for the job's own)");
    public static final ConfigOption<String> REQUEST_ID_FIELD = declare(ConfigOptions.key("request-id-field").stringType().defaultValue("requestId")
            .withDescription("Field holding the request id (a string), the first field of the default identity (request id, ad"
                    + " id): digested, and the shard of the state. A top-level name (taken literally), or a JSON Pointer into"
                    + " objects, e.g. /imp/requestId (~1 for '/', ~0 for '~'; tokens are member names, arrays are not"
                    + " traversed). Not with --dedup-key."),
            FieldPath::isValid, FIELD_PATH);
    public static final ConfigOption<String> AD_ID_FIELD = declare(ConfigOptions.key("ad-id-field").stringType().defaultValue("adId")
            .withDescription("Field holding the ad id (a string or an integer), the second field of the default identity: a"
                    + " top-level name or a JSON Pointer, as --request-id-field. Not with --dedup-key."),
            FieldPath::isValid, FIELD_PATH);
    public static final ConfigOption<String> TIMESTAMP_FIELD = declare(ConfigOptions.key("timestamp-field").stringType().defaultValue("ts")
            .withDescription("Field holding the event time: epoch milliseconds or an ISO-8601 string. A top-level name or a JSON"
                    + " Pointer, as --request-id-field."),
            FieldPath::isValid, FIELD_PATH);
    public static final ConfigOption<List<String>> DEDUP_KEY = declare(ConfigOptions.key("dedup-key").stringType().asList().noDefaultValue()
            .withDescription("The identity of an impression as a list of fields separated by ';' (quote it in a shell), e.g."
                    + " /imp/requestId;/imp/adId;/imp/slot, in place of (--request-id-field, --ad-id-field); each a top-level"
                    + " name or a JSON Pointer, each value a non-empty string or an integer (its text as written). The first"
                    + " field is digested and shards the state (keep all copies of one request in one shard: put the request"
                    + " id first). Records agreeing on every field are copies. Default: (request id, ad id). Changing the key"
                    + " changes every identity: a restore under another key fails (see --allow-dedup-key-change)."),
            key -> !key.isEmpty() && key.stream().allMatch(FieldPath::isValid), "one or more fields separated by ';', each " + FIELD_PATH);
    public static final ConfigOption<Boolean> ALLOW_DEDUP_KEY_CHANGE = declare(ConfigOptions.key("allow-dedup-key-change").booleanType()
            .defaultValue(false)
            .withDescription("Restore state written under another dedup key (the key fields, as --dedup-key or --request-id-field and"
                    + " --ad-id-field give them). Meant for a key whose fields moved but whose values did not (e.g. requestId"
                    + " into /imp/requestId). If the values changed, copies of impressions stored before the change pass once."));
    public static final ConfigOption<Boolean> ALLOW_RETENTION_INCREASE = declare(ConfigOptions.key("allow-retention-increase").booleanType()
            .defaultValue(false)
            .withDescription("Restore state written under a shorter --retention. The buckets the shorter retention already dropped"
                    + " are gone: until the watermark has moved past them, a copy further apart than the old retention, of an"
                    + " impression in one of them, passes once (the old retention's guarantee holds throughout). It also costs FPP:"
                    + " the restored buckets keep their share of --fpp (1/N_old each) while a lookup consults up to N_new > N_old"
                    + " buckets, so a lookup meeting k restored and N_new - k new ones is dropped falsely with probability up to"
                    + " (k/N_old + (N_new - k)/N_new) x --fpp until the restored buckets expire: from 2d to 3d with the defaults,"
                    + " 5/5 + 2/7 = 1.29x --fpp for at most 2 days of event time, then 0.057x less with each day, --fpp again after"
                    + " at most 6 days (the job logs the figure for its options at restore). Without this option such a restore"
                    + " fails."));
    public static final ConfigOption<InputFormat> INPUT_FORMAT = declare(ConfigOptions.key("input-format").enumType(InputFormat.class)
            .defaultValue(InputFormat.JSON)
            .withDescription("How the input's values are encoded: json (one object per value) or avro (one record per value in"
                    + " Avro's binary encoding, written with the schema of --avro-schema-file). The field options then name"
                    + " Avro fields: a top-level field name, or a path of record fields as a JSON Pointer (/imp/requestId)."
                    + " Output and dead letters keep the original bytes."));
    public static final ConfigOption<String> AVRO_SCHEMA_FILE = declare(ConfigOptions.key("avro-schema-file").stringType().noDefaultValue()
            .withDescription("With --input-format avro, unless --avro-schema-registry-url is given: an .avsc file holding the writer schema of every value."
                    + " Read where the options are parsed (the client, or the JobManager) and carried to the TaskManagers in"
                    + " the job; checked at start against the field options (each must be in the schema, of a usable type)."),
            f -> !f.isBlank(), "the path of an .avsc file");
    public static final ConfigOption<AvroWirePrefix> AVRO_WIRE_PREFIX = declare(ConfigOptions.key("avro-wire-prefix")
            .enumType(AvroWirePrefix.class).defaultValue(AvroWirePrefix.NONE)
            .withDescription("With --input-format avro: none (the value is the record alone), confluent (a 0 byte and a 4-byte"
                    + " schema id before the record: Confluent's serializers, and Apicurio 3.x's by default, with the content id)"
                    + " apicurio (a 0 byte and an 8-byte global id: Apicurio's 8-byte id handler) or apicurio-headers (the value"
                    + " is the record alone, the id in the header apicurio.value.globalId or apicurio.value.contentId: Apicurio"
                    + " 2.x's serializers by default). Without --avro-schema-registry-url the id is not looked up: every record"
                    + " is read with --avro-schema-file."));
    public static final ConfigOption<Integer> AVRO_SCHEMA_ID = declare(ConfigOptions.key("avro-schema-id").intType().noDefaultValue()
            .withDescription("With --avro-wire-prefix confluent and --avro-schema-file: the schema id every value must carry; a"
                    + " value with another id (a schema the job was not given) is dead-lettered as malformed. Default: any id."),
            id -> id >= 0, "a non-negative schema registry id");
    public static final ConfigOption<String> AVRO_SCHEMA_REGISTRY_URL = declare(ConfigOptions.key("avro-schema-registry-url")
            .stringType().noDefaultValue()
            .withDescription("With --input-format avro, instead of --avro-schema-file: the base URL of a schema registry's API"
                    + " (http://registry:8080/apis/ccompat/v7, a Confluent registry's root, or"
                    + " http://registry:8080/apis/registry/v3 with --avro-schema-registry-api apicurio). Each value's writer"
                    + " schema is fetched by the id of its --avro-wire-prefix (confluent or apicurio) and kept: producers may"
                    + " evolve their schemas, the fields the job reads are found by name in each. An id the registry does not"
                    + " know (404) is dead-lettered as schema-unknown; while the registry does not answer, the records of"
                    + " schemas not fetched yet wait (the job backpressures), and nothing is dead-lettered for it."),
            u -> !u.isBlank(), "an http:// or https:// URL");
    public static final ConfigOption<SchemaRegistryApi> AVRO_SCHEMA_REGISTRY_API = declare(ConfigOptions.key("avro-schema-registry-api")
            .enumType(SchemaRegistryApi.class).defaultValue(SchemaRegistryApi.CONFLUENT)
            .withDescription("The API of --avro-schema-registry-url: confluent (GET <url>/schemas/ids/<id>; Confluent Schema"
                    + " Registry, or Apicurio's /apis/ccompat/v7) or apicurio (Apicurio's own API, v2 or v3: content ids of the"
                    + " confluent prefix and the content id header, global ids of the apicurio prefix and the global id header)."));
    public static final ConfigOption<String> AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE = declare(ConfigOptions
            .key("avro-schema-registry-credentials-file").stringType().noDefaultValue()
            .withDescription("A file holding user:password (one line) for the registry's basic authentication; https only. Read"
                    + " where the options are parsed; the path is logged, never the password."),
            f -> !f.isBlank(), "the path of a file holding user:password");
    public static final ConfigOption<String> AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES = declare(ConfigOptions
            .key("avro-schema-registry-trusted-certificates").stringType().noDefaultValue()
            .withDescription("A PEM file of the certificates (a CA's, or the registry's own) that the registry's TLS certificate"
                    + " must chain to, instead of the JVM's trust store. Read where the options are parsed."),
            f -> !f.isBlank(), "the path of a PEM file");
    public static final ConfigOption<Duration> AVRO_SCHEMA_REGISTRY_TIMEOUT = declare(ConfigOptions.key("avro-schema-registry-timeout")
            .durationType().defaultValue(Duration.ofSeconds(10))
            .withDescription("How long one request to the registry may take before it is asked again (connection and answer)."),
            d -> d.toMillis() > 0, "a positive duration");
    /** The options that apply to Avro input only: an error with {@code --input-format json}. */
    public static final List<ConfigOption<?>> AVRO_OPTIONS = List.of(AVRO_SCHEMA_FILE, AVRO_WIRE_PREFIX, AVRO_SCHEMA_ID,
            AVRO_SCHEMA_REGISTRY_URL, AVRO_SCHEMA_REGISTRY_API, AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE,
            AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES, AVRO_SCHEMA_REGISTRY_TIMEOUT);
    /** The options that apply only with {@link #AVRO_SCHEMA_REGISTRY_URL}. */
    public static final List<ConfigOption<?>> AVRO_SCHEMA_REGISTRY_OPTIONS = List.of(AVRO_SCHEMA_REGISTRY_API,
            AVRO_SCHEMA_REGISTRY_CREDENTIALS_FILE, AVRO_SCHEMA_REGISTRY_TRUSTED_CERTIFICATES, AVRO_SCHEMA_REGISTRY_TIMEOUT);

    public static final ConfigOption<Integer> PARALLELISM = declare(ConfigOptions.key("parallelism").intType().noDefaultValue()
            .withDescription("Job parallelism. Default: Flink's parallelism.default."),
            p -> p >= 1, "a positive parallelism");
    public static final ConfigOption<StateBackendType> STATE_BACKEND = declare(ConfigOptions.key("state-backend")
            .enumType(StateBackendType.class).defaultValue(StateBackendType.ROCKSDB)
            .withDescription("rocksdb (incremental checkpoints; state larger than memory) or hashmap (state on the heap)."
                    + " Default: Flink's state.backend.type if set, else rocksdb."));
    public static final ConfigOption<Duration> CHECKPOINT_INTERVAL = declare(ConfigOptions.key("checkpoint-interval").durationType()
            .defaultValue(Duration.ofSeconds(30))
            .withDescription("Checkpoint interval; output becomes visible to read_committed consumers at each checkpoint."
                    + " Default: Flink's execution.checkpointing.interval if set, else 30s."),
            d -> d.toMillis() >= 1000, "at least 1s");
    public static final ConfigOption<String> CHECKPOINT_DIR = declare(ConfigOptions.key("checkpoint-dir").stringType().noDefaultValue()
            .withDescription("Checkpoint directory URI (file://, s3://, ...). Default: Flink's execution.checkpointing.dir."));
    public static final ConfigOption<DeliveryGuarantee> DELIVERY = declare(ConfigOptions.key("delivery").enumType(DeliveryGuarantee.class)
            .defaultValue(DeliveryGuarantee.EXACTLY_ONCE)
            .withDescription("exactly-once (Kafka transactions committed on checkpoints) or at-least-once."),
            d -> d != DeliveryGuarantee.NONE, "exactly-once or at-least-once");
    public static final ConfigOption<String> TRANSACTIONAL_ID_PREFIX = declare(ConfigOptions.key("transactional-id-prefix").stringType()
            .noDefaultValue()
            .withDescription("Prefix of the sinks' Kafka transactional ids. Unique per job on a Kafka cluster: a job started with"
                    + " the prefix of another aborts that job's open transactions, losing their records. Stable across restarts:"
                    + " a restart under another prefix leaves the previous run's open transaction in place, and read_committed"
                    + " consumers wait behind it until --transaction-timeout. Default: the same as --group-id's, "
                    + JobIdentity.describeDerivation() + "."),
            p -> !p.isBlank(), "a non-blank prefix");
    public static final ConfigOption<Duration> TRANSACTION_TIMEOUT = declare(ConfigOptions.key("transaction-timeout").durationType()
            .defaultValue(Duration.ofMinutes(15))
            .withDescription("Kafka transaction timeout of the exactly-once sinks: at least twice the checkpoint interval, at most"
                    + " the brokers' transaction.max.timeout.ms (15 min by default). It bounds the longest safe outage: the output"
                    + " of the last checkpoint before a failure is committed only after the restart, and the brokers abort it"
                    + " (the records are lost) once it is older than this. The start-up log and the longestSafeOutageMs metric"
                    + " give the bound."),
            d -> d.toMillis() > 0, "a positive duration");

    /**
     * Every option, in the order of {@code --help}: the order of the declarations above, each made through {@link
     * #declare} (static initialisers run in textual order), so an option cannot be declared and left out.
     */
    public static final List<ConfigOption<?>> ALL = List.copyOf(DECLARED);

    /** The options without a default that the job cannot run without. */
    public static final Set<ConfigOption<?>> REQUIRED = Set.of(BOOTSTRAP_SERVERS, INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC, CAPACITY);

    /** The options that decide the Bloom filters' sizing and time buckets: what the {@code plan} command takes. */
    public static final List<ConfigOption<?>> PLAN = List.of(CAPACITY, FPP, BUCKET_SIZE, RETENTION, ALLOWED_LATENESS, ZONE, KEY_BITS,
            MAX_PARALLELISM, SHARDS, PAGE_BYTES, PAGE_CACHE_BYTES, SHARD_STATE_CAP, STATE_FORMAT, STATE_BACKEND);

    /** A rule an option's value (given or default) must meet, and how to say what was expected. */
    public static final class Rule<T> {
        final ConfigOption<T> option;
        final Predicate<T> valid;
        final String expected;

        private Rule(ConfigOption<T> option, Predicate<T> valid, String expected) {
            this.option = option;
            this.valid = valid;
            this.expected = expected;
        }
    }



    private DedupJobOptions() {}

    /** Declares {@code option}: appends it to {@link #ALL}, in declaration order. */
    private static <T> ConfigOption<T> declare(ConfigOption<T> option) {
        DECLARED.add(option);
        return option;
    }

    /** Declares {@code option} with the rule its value (given or default) must meet: {@code valid}, said as {@code expected}. */
    private static <T> ConfigOption<T> declare(ConfigOption<T> option, Predicate<T> valid, String expected) {
        RULES.put(option.key(), new Rule<>(option, valid, expected));
        return declare(option);
    }

    /** The rule of {@code option}, or {@code null}. */
    @SuppressWarnings("unchecked")
    static <T> Rule<T> ruleOf(ConfigOption<T> option) {
        return (Rule<T>) RULES.get(option.key());
    }

    /** What a valid value of {@code option} looks like, for help and error messages. */
    public static String expectation(ConfigOption<?> option) {
        Rule<?> rule = RULES.get(option.key());
        if (rule != null) {
            return rule.expected;
        }
        if (option.hasDefaultValue() && option.defaultValue() instanceof Enum) {
            List<String> values = new ArrayList<>();
            for (Object constant : option.defaultValue().getClass().getEnumConstants()) {
                values.add(constant.toString());
            }
            return "one of " + values;
        }
        return option.hasDefaultValue() && option.defaultValue() instanceof Boolean ? "true or false" : "a value";
    }

    /** The option's description as plain text. */
    public static String descriptionOf(ConfigOption<?> option) {
        // Flink formats descriptions as HTML: drop its tags and undo its escapes (a description may say <input-topic>).
        return new org.apache.flink.configuration.description.HtmlFormatter().format(option.description()).replaceAll("<[^>]+>", "")
                .replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    }

    /** Options by key. */
    public static Map<String, ConfigOption<?>> byKey() {
        Map<String, ConfigOption<?>> byKey = new LinkedHashMap<>();
        for (ConfigOption<?> option : ALL) {
            byKey.put(option.key(), option);
        }
        return Collections.unmodifiableMap(byKey);
    }

    private static boolean isZone(String zone) {
        try {
            ZoneId.of(zone);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean isInstant(String value) {
        try {
            Instant.parse(value);
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }
}
