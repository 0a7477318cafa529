package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.StartingOffsets;
import io.impressiondedup.job.config.StateBackendType;
import io.impressiondedup.operators.dedup.LatePolicy;
import io.impressiondedup.operators.dedup.store.PageCacheBudget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DedupJobOptionsTest {

    static final String[] REQUIRED = {
        "--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out", "--dlq-topic", "dlq", "--capacity", "1000000"
    };

    static DedupJobConfig parse(String... extra) {
        List<String> args = new ArrayList<>(List.of(REQUIRED));
        args.addAll(List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        DedupJobConfig config = parse();
        assertThat(config.dedupSettings().plan().fpp()).isEqualTo(0.001);
        assertThat(config.dedupSettings().plan().timeBuckets().bucketSize()).isEqualTo(Duration.ofDays(1));
        assertThat(config.dedupSettings().plan().timeBuckets().retention()).isEqualTo(Duration.ofDays(2));
        assertThat(config.dedupSettings().plan().fingerprintScheme().keyBits()).isEqualTo(64);
        assertThat(config.dedupSettings().plan().shards()).isEqualTo(128).isEqualTo(config.maxParallelism());
        assertThat(config.maxOutOfOrderness()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.stateBackend()).isEqualTo(StateBackendType.ROCKSDB);
        assertThat(config.dedupSettings().plan().timeBuckets().allowedLateness()).isEqualTo(Duration.ofDays(1));
        assertThat(config.dedupSettings().latePolicy()).isEqualTo(LatePolicy.DEAD_LETTER);
        assertThat(config.startingOffsets()).isEqualTo(StartingOffsets.COMMITTED);
        assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.delivery()).isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(config.bounded()).isFalse();
        assertThat(config.dedupSettings().plan().pageBytes()).isEqualTo(256);
        assertThat(parse("--state-backend", "hashmap").dedupSettings().plan().pageBytes()).isEqualTo(2048);
        assertThat(parse("--page-bytes", "1024").dedupSettings().plan().pageBytes()).isEqualTo(1024);
    }

    @Test
    void thePageCacheTakesAShareOfTheTaskHeapWithRocksdbIsOffWithHashmapAndIsFixedByPageCacheBytes() {
        assertThat(parse().dedupSettings().pageCacheBudget()).isEqualTo(PageCacheBudget.shareOfTaskHeap());
        assertThat(parse("--state-backend", "hashmap").dedupSettings().pageCacheBudget()).isEqualTo(PageCacheBudget.ofBytes(0));
        assertThat(parse("--page-cache-bytes", "8mb").dedupSettings().pageCacheBudget()).isEqualTo(PageCacheBudget.ofBytes(8L << 20));
        assertThat(parse("--state-backend", "hashmap", "--page-cache-bytes", "1g").dedupSettings().pageCacheBudget().fixedBytes())
                .isEqualTo(1L << 30);
        assertThat(parse("--page-cache-bytes", "0").dedupSettings().pageCacheBudget()).isEqualTo(PageCacheBudget.ofBytes(0));
    }

    @Test
    void everyOptionTheIssueNamesIsAccepted() {
        DedupJobConfig config = parse("--group-id", "g", "--fpp", "0.01", "--bucket-size", "6h", "--retention", "36h", "--key-bits", "96",
                "--max-out-of-orderness", "2min", "--max-future-skew", "30min", "--state-backend", "hashmap",
                "--checkpoint-interval", "10s", "--checkpoint-dir", "file:///tmp/cp", "--delivery", "at-least-once",
                "--transactional-id-prefix", "tx", "--bounded", "--request-id-field", "rid", "--ad-id-field", "aid",
                "--timestamp-field", "time", "--kafka.security.protocol", "SASL_SSL");
        assertThat(config.delivery()).isEqualTo(DeliveryGuarantee.AT_LEAST_ONCE);
        assertThat(config.bounded()).isTrue();
        assertThat(config.dedupSettings().plan().timeBuckets().maxBucketsChecked()).isEqualTo(2 * 6 + 1);
        assertThat(config.kafkaProperties()).containsEntry("security.protocol", "SASL_SSL");
    }

    @Test
    void aMissingRequiredOptionIsNamed() {
        assertThatThrownBy(() -> DedupJobConfig.parse("--bootstrap-servers", "x", "--input-topic", "in", "--output-topic", "o", "--dlq-topic", "d"))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("--capacity").hasMessageContaining("dedup.capacity");
    }

    @Test
    void helpMarksOnlyTheTrulyRequiredOptions() {
        String help = DedupJob.help();
        assertThat(help).contains("--capacity  (required)").contains("--bootstrap-servers  (required)");
        assertThat(help).contains("--duplicates-topic\n").contains("--parallelism\n").contains("--checkpoint-dir\n");
    }

    @Test
    void invalidValuesNameTheOptionAndTheAllowedValues() {
        assertThatThrownBy(() -> parse("--fpp", "2")).hasMessage("Invalid value '2' for --fpp: expected a rate in (0, 0.5), e.g. 0.001");
        assertThatThrownBy(() -> parse("--late-policy", "keep")).hasMessageContaining("--late-policy").hasMessageContaining("[dead-letter, emit, drop]");
        assertThatThrownBy(() -> parse("--min-event-time", "2000")).hasMessageContaining("--min-event-time");
        assertThatThrownBy(() -> parse("--state-backend", "memory")).hasMessageContaining("--state-backend").hasMessageContaining("[rocksdb, hashmap]");
        assertThatThrownBy(() -> parse("--delivery", "exactly_once")).hasMessageContaining("--delivery").hasMessageContaining("exactly-once or at-least-once");
        assertThatThrownBy(() -> parse("--key-bits", "16")).hasMessageContaining("--key-bits").hasMessageContaining("[32, 128]");
        assertThatThrownBy(() -> parse("--bucket-size", "7h")).hasMessageContaining("--bucket-size");
        assertThatThrownBy(() -> parse("--checkpoint-interval", "soon")).hasMessageContaining("--checkpoint-interval").hasMessageContaining("soon");
        assertThatThrownBy(() -> parse("--starting-offsets", "first")).hasMessageContaining("[committed, earliest, latest]");
    }

    @Test
    void anUnknownOptionIsNamed() {
        assertThatThrownBy(() -> parse("--retention-days", "2")).hasMessageContaining("Unknown option --retention-days");
    }

    @Test
    void aTransactionTimeoutTooShortForTheCheckpointIntervalIsRejectedNamingBoth() {
        assertThatThrownBy(() -> parse("--checkpoint-interval", "10min", "--transaction-timeout", "15min"))
                .hasMessageContaining("--transaction-timeout 900s")
                .hasMessageContaining("--checkpoint-interval (600s)");
        assertThat(parse("--checkpoint-interval", "10min", "--transaction-timeout", "15min", "--delivery", "at-least-once")).isNotNull();
    }

    @Test
    void theJobCannotReadItsOwnOutput() {
        assertThatThrownBy(() -> DedupJobConfig.parse("--bootstrap-servers", "x", "--input-topic", "t", "--output-topic", "t",
                "--dlq-topic", "d", "--capacity", "10")).hasMessageContaining("--input-topic");
    }

    @Test
    void aStateTtlShorterThanTheRetentionIsRejected() {
        assertThatThrownBy(() -> parse("--state-ttl", "1d")).hasMessageContaining("--state-ttl");
        assertThat(parse("--state-ttl", "0s").dedupSettings().stateTtl()).isZero();
    }

    @Test
    void helpListsTheOptionsByTheirExactNames() {
        String help = DedupJob.help();
        for (String name : List.of("--bootstrap-servers", "--input-topic", "--output-topic", "--dlq-topic", "--group-id", "--fpp",
                "--capacity", "--bucket-size", "--retention", "--key-bits", "--max-out-of-orderness", "--max-future-skew",
                "--state-backend", "--checkpoint-interval", "--checkpoint-dir", "--delivery", "--transactional-id-prefix",
                "--bounded", "--allowed-lateness", "--late-policy", "--min-event-time", "--reset-lateness-watermark",
                "--kafka.<property>", "--config")) {
            assertThat(help).contains(name);
        }
    }

    @Test
    void secretsAreNeverShownInTheStartupLog() {
        String described = parse("--kafka.sasl.jaas.config", "PlainLoginModule required password=\"s3cret\";", "--kafka.ssl.key.password", "kp1",
                "--kafka.ssl.keystore.key", "-----BEGIN PRIVATE KEY----- kp2", "--kafka.sasl.oauthbearer.assertion.private.key.passphrase", "kp3",
                "--kafka.security.protocol", "SASL_SSL").describe();
        assertThat(described).doesNotContain("s3cret").doesNotContain("kp1").doesNotContain("kp2").doesNotContain("kp3")
                .contains("kafka.sasl.jaas.config = ******").contains("kafka.ssl.keystore.key = ******")
                .contains("kafka.security.protocol = SASL_SSL").contains("input-topic = in").contains("allowed-lateness = 1 d (default)");
    }

    @Test
    void anOptionSetOnlyInFlinksConfigurationTakesEffect() {
        Configuration flink = new Configuration();
        flink.setString("dedup.allowed-lateness", "6h");
        flink.setString("dedup.kafka.security.protocol", "SSL");
        DedupJobConfig config = DedupJobConfig.fromSources(REQUIRED, flink);
        assertThat(config.dedupSettings().plan().timeBuckets().allowedLateness()).isEqualTo(Duration.ofHours(6));
        assertThat(config.kafkaProperties()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void programArgumentsWinOverFlinksConfiguration() {
        Configuration flink = new Configuration();
        flink.setString("dedup.fpp", "0.01");
        flink.setString("dedup.input-topic", "from-flink");
        List<String> args = new ArrayList<>(List.of(REQUIRED));
        args.addAll(List.of("--fpp", "0.002"));
        DedupJobConfig config = DedupJobConfig.fromSources(args.toArray(new String[0]), flink);
        assertThat(config.dedupSettings().plan().fpp()).isEqualTo(0.002);
        assertThat(config.inputTopic()).isEqualTo("in");
    }

    @Test
    void flinksOwnKeysAreUsedWhereTheJobOptionIsNotGivenAndTheJobOptionWinsWhereItIs() {
        Configuration flink = new Configuration();
        flink.setString("state.backend.type", "hashmap");
        flink.setString("execution.checkpointing.interval", "45s");
        DedupJobConfig fromFlink = DedupJobConfig.fromSources(REQUIRED, flink);
        assertThat(fromFlink.stateBackend()).isEqualTo(StateBackendType.HASHMAP);
        assertThat(fromFlink.dedupSettings().plan().pageBytes()).isEqualTo(2048);
        assertThat(fromFlink.checkpointInterval()).isEqualTo(Duration.ofSeconds(45));

        List<String> args = new ArrayList<>(List.of(REQUIRED));
        args.addAll(List.of("--state-backend", "rocksdb", "--checkpoint-interval", "20s"));
        DedupJobConfig fromArgs = DedupJobConfig.fromSources(args.toArray(new String[0]), flink);
        assertThat(fromArgs.stateBackend()).isEqualTo(StateBackendType.ROCKSDB);
        assertThat(fromArgs.checkpointInterval()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void anUnknownOptionInFlinksConfigurationIsNamedWithItsPrefix() {
        Configuration flink = new Configuration();
        flink.setString("dedup.retention-days", "2");
        assertThatThrownBy(() -> DedupJobConfig.fromSources(REQUIRED, flink)).hasMessageContaining("Unknown option dedup.retention-days")
                .hasMessageContaining("Flink's configuration");
    }

    @Test
    void aPropertiesFileGivesOptionsThatTheArgumentsOverride(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(file, "fpp=0.01\nkafka.security.protocol=SSL\nretention=3d\n");
        DedupJobConfig config = parse("--config", file.toString(), "--fpp", "0.005");
        assertThat(config.dedupSettings().plan().fpp()).isEqualTo(0.005);
        assertThat(config.dedupSettings().plan().timeBuckets().retention()).isEqualTo(Duration.ofDays(3));
        assertThat(config.kafkaProperties()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void theBuilderTakesTypedValuesAndValidatesInBuild() {
        DedupJobConfig config = DedupJobConfig.builder()
                .set(DedupJobOptions.BOOTSTRAP_SERVERS, "k:9092").set(DedupJobOptions.INPUT_TOPIC, "in")
                .set(DedupJobOptions.OUTPUT_TOPIC, "out").set(DedupJobOptions.DLQ_TOPIC, "dlq").set(DedupJobOptions.CAPACITY, 1_000_000L)
                .set(DedupJobOptions.LATE_POLICY, LatePolicy.EMIT).set(DedupJobOptions.ALLOWED_LATENESS, Duration.ofHours(12))
                .kafkaProperty("acks", "all")
                .build();
        assertThat(config.dedupSettings().latePolicy()).isEqualTo(LatePolicy.EMIT);
        assertThat(config.dedupSettings().plan().timeBuckets().allowedLateness()).isEqualTo(Duration.ofHours(12));
        assertThat(config.kafkaProperties()).containsEntry("acks", "all");
        assertThatThrownBy(() -> DedupJobConfig.builder().set(DedupJobOptions.BOOTSTRAP_SERVERS, "k:9092")
                .set(DedupJobOptions.INPUT_TOPIC, "in").set(DedupJobOptions.OUTPUT_TOPIC, "out").set(DedupJobOptions.DLQ_TOPIC, "dlq")
                .set(DedupJobOptions.CAPACITY, 1_000_000L).set(DedupJobOptions.FPP, 0.7).build())
                .isInstanceOf(InvalidOptionException.class).hasMessageContaining("--fpp");
    }
}
