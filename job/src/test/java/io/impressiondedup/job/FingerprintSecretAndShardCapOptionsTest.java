package io.impressiondedup.job;

import static io.impressiondedup.job.DedupJobOptionsTest.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.kafka.ImpressionDeserializationSchema;
import io.impressiondedup.job.io.parsing.JsonImpressionParser;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.identity.RequestIdDigester;
import io.impressiondedup.state.plan.DedupPlan;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.util.InstantiationUtil;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --fingerprint-secret-file} and {@code --shard-state-cap}: validation, and where each value goes. */
class FingerprintSecretAndShardCapOptionsTest {

    /** What a source gives its deserializer when it opens: metrics that go nowhere here. */
    private static final DeserializationSchema.InitializationContext UNREGISTERED = new DeserializationSchema.InitializationContext() {
        @Override
        public MetricGroup getMetricGroup() {
            return new UnregisteredMetricsGroup();
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            throw new UnsupportedOperationException("not used by the deserializer");
        }
    };

    /**
     * The secret file's content in the job's tests: a test JVM derives each secret's slow check value once (over a
     * second under the tests' client compiler), so they share one.
     */
    static final String SECRET = "3f9c1e0b7a6d5c4b3a29180716253443f9c1e0b7a6d5c4b3a2918071625344";

    @TempDir
    Path dir;

    @Test
    void withoutTheOptionsDigestsAreUnkeyedAndTheCapIsEightTimesThePlan() {
        DedupJobConfig config = parse();
        assertThat(config.parserSettings().fingerprintSecretFile()).isNull();
        assertThat(config.dedupSettings().fingerprintCheck()).isEqualTo(FingerprintSecret.NO_SECRET);
        assertThat(config.dedupSettings().plan().shardStateCap()).isEqualTo(8.0);
    }

    @Test
    void theSecretKeysTheParsersDigestAndOnlyItsCheckValueReachesTheOperator() throws Exception {
        Path file = Files.writeString(dir.resolve("fingerprint.secret"), SECRET + "\n");
        DedupJobConfig config = parse("--fingerprint-secret-file", file.toString());

        FingerprintSecret secret = FingerprintSecret.read(file);
        assertThat(config.parserSettings().fingerprintSecretFile().path()).isEqualTo(file.toString());
        assertThat(config.parserSettings().fingerprintSecretFile().checkValue()).isEqualTo(secret.checkValue());
        assertThat(config.dedupSettings().fingerprintCheck()).isEqualTo(secret.checkValue());

        Impression impression = new JsonImpressionParser(config.parserSettings(), () -> 1_000_000_000_000L).parse(record("{\"requestId\":\"r-1\",\"adId\":\"a\",\"ts\":1000000000000}"))
                .impression();
        RequestIdDigester keyed = new RequestIdDigester(secret);
        keyed.digest("r-1");
        assertThat(impression.digestHigh()).isEqualTo(keyed.high());
        assertThat(impression.digestLow()).isEqualTo(keyed.low());
        RequestIdDigester plain = new RequestIdDigester();
        plain.digest("r-1");
        assertThat(impression.digestHigh()).isNotEqualTo(plain.high());
        // The ad id is hashed with the secret's key at the source too, and new filters use that hash.
        assertThat(impression.keyedAdIdHash()).isEqualTo(secret.keyedAdIdHash("a")).isNotZero();
        assertThat(config.dedupSettings().plan().fingerprintScheme().adIdsKeyed()).isTrue();
    }

    @Test
    void withoutASecretTheAdIdIsNotKeyedAndNewFiltersUseTheUnkeyedHash() throws Exception {
        DedupJobConfig config = parse();
        Impression impression = new JsonImpressionParser(config.parserSettings(), () -> 1_000_000_000_000L)
                .parse(record("{\"requestId\":\"r-1\",\"adId\":\"a\",\"ts\":1000000000000}")).impression();
        assertThat(impression.keyedAdIdHash()).isZero();
        assertThat(config.dedupSettings().plan().fingerprintScheme().adIdsKeyed()).isFalse();
    }

    @Test
    void theSerializedSourceHoldsTheSecretsPathButNeitherTheSecretNorItsKeyBlock() throws Exception {
        Path file = Files.writeString(dir.resolve("fingerprint.secret"), SECRET + "\n");
        DedupJobConfig config = parse("--fingerprint-secret-file", file.toString());
        byte[] graph = InstantiationUtil.serializeObject(KafkaConnectors.source(config));

        byte[] secret = SECRET.getBytes(StandardCharsets.US_ASCII); // 64 bytes: the key block is the secret xor 0x36
        byte[] keyBlock = new byte[secret.length];
        for (int i = 0; i < secret.length; i++) {
            keyBlock[i] = (byte) (secret[i] ^ 0x36);
        }
        assertThat(contains(graph, file.toString().getBytes(StandardCharsets.UTF_8))).as("the path").isTrue();
        for (int from = 0; from + 16 <= secret.length; from += 16) {
            assertThat(contains(graph, Arrays.copyOfRange(secret, from, from + 16))).as("secret bytes %d..%d", from, from + 15).isFalse();
            assertThat(contains(graph, Arrays.copyOfRange(keyBlock, from, from + 16))).as("key block bytes %d..%d", from, from + 15)
                    .isFalse();
        }
    }

    @Test
    void aTaskReadsTheSecretWhereItOpensAndFailsNamingTheOptionIfTheFileIsMissingOrAnother() throws Exception {
        Path file = Files.writeString(dir.resolve("fingerprint.secret"), SECRET + "\n");
        DedupJobConfig config = parse("--fingerprint-secret-file", file.toString());
        byte[] shipped = InstantiationUtil.serializeObject(new ImpressionDeserializationSchema(config.parserSettings()));
        ClassLoader loader = getClass().getClassLoader();

        ImpressionDeserializationSchema task = InstantiationUtil.deserializeObject(shipped, loader);
        task.open(UNREGISTERED);
        List<ParsedRecord> out = new ArrayList<>();
        task.deserialize(new ConsumerRecord<>("in", 0, 0L, null,
                "{\"requestId\":\"r-1\",\"adId\":\"a\",\"ts\":1000000000000}".getBytes(StandardCharsets.UTF_8)), new ListCollector<>(out));
        RequestIdDigester keyed = new RequestIdDigester(FingerprintSecret.read(file));
        keyed.digest("r-1");
        assertThat(out.get(0).impression().digestHigh()).isEqualTo(keyed.high());

        Files.writeString(file, SECRET.replace('3', '4') + "\n");
        ImpressionDeserializationSchema otherFile = InstantiationUtil.deserializeObject(shipped, loader);
        assertThatThrownBy(() -> otherFile.open(UNREGISTERED)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--fingerprint-secret-file " + file + " on this machine holds another secret")
                .hasMessageNotContaining(SECRET.substring(0, 16));
        Files.delete(file);
        ImpressionDeserializationSchema noFile = InstantiationUtil.deserializeObject(shipped, loader);
        assertThatThrownBy(() -> noFile.open(UNREGISTERED)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot read --fingerprint-secret-file " + file + " on this machine")
                .hasMessageContaining("NoSuchFileException");
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int k = 0; k < needle.length; k++) {
                if (haystack[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void theStartupLogShowsTheSecretsPathNeverTheSecret() throws Exception {
        Path file = Files.writeString(dir.resolve("fingerprint.secret"), SECRET);
        DedupJobConfig config = parse("--fingerprint-secret-file", file.toString());
        assertThat(config.describe()).contains("fingerprint-secret-file = " + file).doesNotContain(SECRET.substring(0, 16));
        assertThat(config.dedupSettings().toString()).doesNotContain(SECRET.substring(0, 16));
        assertThat(DedupJob.help()).contains("--fingerprint-secret-file\n").contains("--shard-state-cap  (default: 8.0)");
    }

    @Test
    void aMissingEmptyOrShortSecretFileIsRejectedNamingTheOptionAndTheFile() throws Exception {
        Path missing = dir.resolve("missing.secret");
        assertThatThrownBy(() -> parse("--fingerprint-secret-file", missing.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("Cannot read --fingerprint-secret-file " + missing).hasMessageContaining("NoSuchFileException");
        Path empty = Files.writeString(dir.resolve("empty.secret"), "\n");
        assertThatThrownBy(() -> parse("--fingerprint-secret-file", empty.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("Invalid --fingerprint-secret-file " + empty).hasMessageContaining("empty");
        Path shortSecret = Files.writeString(dir.resolve("short.secret"), "only-12-char\n");
        assertThatThrownBy(() -> parse("--fingerprint-secret-file", shortSecret.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("--fingerprint-secret-file").hasMessageContaining("16 to 1024 bytes, but has 12")
                .hasMessageNotContaining("only-12-char");
        assertThatThrownBy(() -> parse("--fingerprint-secret-file", dir.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("Cannot read --fingerprint-secret-file " + dir).hasMessageContaining("not a regular file");
        assertThatThrownBy(() -> parse("--fingerprint-secret-file", " ")).hasMessageContaining("--fingerprint-secret-file");
    }

    @Test
    void aShardStateCapOfZeroOrLessIsRejectedNamingTheOption() {
        for (String bad : new String[] {"0", "-1", "NaN"}) {
            assertThatThrownBy(() -> parse("--shard-state-cap", bad)).isInstanceOf(InvalidOptionException.class)
                    .hasMessage("Invalid value '" + bad + "' for --shard-state-cap: expected a positive multiple of a shard's planned state, e.g. 8");
        }
        assertThatThrownBy(() -> parse("--shard-state-cap", "lots")).hasMessageContaining("--shard-state-cap").hasMessageContaining("lots");
        assertThat(parse("--shard-state-cap", "2.5").dedupSettings().plan().shardStateCap()).isEqualTo(2.5);
    }

    @Test
    void thePlanCommandTakesTheCapAndPrintsItPerShard() {
        DedupPlan plan = PlanCommand.plan("--capacity", "50000000", "--shard-state-cap", "4");
        assertThat(plan).isEqualTo(parse("--shard-state-cap", "4", "--capacity", "50000000").dedupSettings().plan());
        assertThat(plan.shardStateCapBytes()).isEqualTo(4 * plan.plannedBytesPerShard());

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(PlanCommand.run(new String[] {"--capacity", "50000000"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Shard state cap:").contains("(--shard-state-cap 8 x the planned");
    }

    private static RawKafkaRecord record(String json) {
        return new RawKafkaRecord("impressions", 0, 0, 0, null, json.getBytes(StandardCharsets.UTF_8), new String[0], new byte[0][]);
    }
}
