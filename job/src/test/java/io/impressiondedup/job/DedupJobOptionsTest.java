package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.cli.InvalidCommandLineException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.junit.jupiter.api.Test;

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
        assertThat(config.stateBackend()).isEqualTo("rocksdb");
        assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.delivery()).isEqualTo(DeliveryGuarantee.EXACTLY_ONCE);
        assertThat(config.bounded()).isFalse();
        assertThat(config.dedupSettings().plan().pageBytes()).isEqualTo(256);
        assertThat(parse("--state-backend", "hashmap").dedupSettings().plan().pageBytes()).isEqualTo(2048);
        assertThat(parse("--page-bytes", "1024").dedupSettings().plan().pageBytes()).isEqualTo(1024);
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
                .isInstanceOf(InvalidCommandLineException.class)
                .hasMessageContaining("--capacity");
    }

    @Test
    void helpMarksOnlyTheTrulyRequiredOptions() {
        String help = DedupJobOptions.OPTIONS.help();
        assertThat(help).contains("--capacity  (required)").contains("--bootstrap-servers  (required)");
        assertThat(help).contains("--duplicates-topic\n").contains("--parallelism\n").contains("--checkpoint-dir\n");
    }

    @Test
    void invalidValuesNameTheOptionAndTheAllowedValues() {
        assertThatThrownBy(() -> parse("--fpp", "2")).hasMessage("Invalid value '2.0' for --fpp: expected a rate in (0, 0.5), e.g. 0.001");
        assertThatThrownBy(() -> parse("--state-backend", "memory")).hasMessageContaining("--state-backend").hasMessageContaining("[rocksdb, hashmap]");
        assertThatThrownBy(() -> parse("--delivery", "exactly_once")).hasMessageContaining("--delivery").hasMessageContaining("[exactly-once, at-least-once]");
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
        String help = DedupJobOptions.OPTIONS.help();
        for (String name : List.of("--bootstrap-servers", "--input-topic", "--output-topic", "--dlq-topic", "--group-id", "--fpp",
                "--capacity", "--bucket-size", "--retention", "--key-bits", "--max-out-of-orderness", "--max-future-skew",
                "--state-backend", "--checkpoint-interval", "--checkpoint-dir", "--delivery", "--transactional-id-prefix",
                "--bounded", "--kafka.<property>")) {
            assertThat(help).contains(name);
        }
    }

    @Test
    void secretsAreNeverShownInTheStartupLog() {
        List<String> args = new ArrayList<>(List.of(REQUIRED));
        args.addAll(List.of("--kafka.sasl.jaas.config", "PlainLoginModule required password=\"s3cret\";", "--kafka.ssl.key.password", "kp"));
        String described = DedupJobOptions.OPTIONS.describe(DedupJobOptions.OPTIONS.parse(args.toArray(new String[0])));
        assertThat(described).doesNotContain("s3cret").doesNotContain("kp\n").contains("kafka.sasl.jaas.config = ******");
    }
}
