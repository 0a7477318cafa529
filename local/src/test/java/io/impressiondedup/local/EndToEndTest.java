package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.DeadLetterHeaders;
import io.impressiondedup.testdata.Generation;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.GroundTruth;
import io.impressiondedup.testdata.GroundTruthWriter;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.KafkaTopicDestination;
import io.impressiondedup.testdata.ValueFormat;
import io.impressiondedup.testdata.VerificationReport;
import io.impressiondedup.testdata.Verifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production topology on a real broker and a local Flink cluster, fed generated impressions and
 * judged by the ground-truth verifier: no duplicate passes, nothing is lost or written twice, every
 * dead letter has the right reason, and the false positives stay within {@link FalsePositiveLimit}.
 */
class EndToEndTest {

    static final double FPP = 0.001;

    @Test
    void generatedImpressionsAreDeduplicatedAsTheGroundTruthSays(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("e2e", 4);
        GroundTruth truth = generate(topics[0], dir, 100_000, 11);
        DedupJobConfig config = config(topics, dir, "rocksdb", 2);

        JobExecutionResult result = runBounded(config, DedupJob.kafkaSource(config));

        VerificationReport report = verify(truth, topics);
        System.out.println(report.toText(FPP));
        assertThat(report.exactlyOnceViolations()).as(report.toText(FPP)).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(dir.resolve("truth.csv"), config.dedupSettings().plan()))).isEmpty();
        assertThat(report.deadLettersByReason()).containsKeys("late", "malformed", "oversized", "future-timestamp");
        assertThat(Accounting.summary(result.getAllAccumulatorResults())).startsWith("input 100,000 =").endsWith("(balanced)");
    }

    /**
     * The stream written in Avro with the schema registry's wire prefix (its usual delayed records, copies,
     * malformed and far-future ones, no late ones, the malformed ones Avro's own: truncated, trailing bytes, a wrong magic byte,
     * an empty request id, a null ad id, a union branch out of range, ...), read with {@code --input-format avro}: the
     * same verdicts, and every malformed dead letter names the field by its path, or says what is wrong with the
     * record. About 15 s. (Without the prefix: {@code AvroImpressionParserTest}, record by record.)
     */
    @Test
    void avroImpressionsWithTheConfluentPrefixAreDeduplicatedAsTheGroundTruthSays(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("e2e-avro", 4);
        GroundTruth truth = generate(topics[0], dir, 30_000, 12, b -> b.format(ValueFormat.AVRO).avroSchemaId(5)
                .lateShare(0)); // see below
        Path schema = Files.writeString(dir.resolve("impression.avsc"), GeneratorSettings.avroSchemaText());
        DedupJobConfig config = config(topics, dir, "hashmap", 2, "--input-format", "avro", "--avro-schema-file", schema.toString(),
                "--avro-wire-prefix", "confluent", "--avro-schema-id", "5");

        JobExecutionResult result = runBounded(config, DedupJob.kafkaSource(config));

        VerificationReport report = verify(truth, topics);
        System.out.println(report.toText(FPP));
        assertThat(report.exactlyOnceViolations()).as(report.toText(FPP)).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(dir.resolve("truth.csv"), config.dedupSettings().plan()))).isEmpty();
        // No late records: 30,000 Avro records are read before the watermark is surely established (the generator's
        // Javadoc), so whether one is late would depend on timing, not on the format; the first case covers lateness.
        assertThat(report.deadLettersByReason()).containsKeys("malformed", "oversized", "future-timestamp");
        assertThat(Accounting.summary(result.getAllAccumulatorResults())).startsWith("input 30,000 =").endsWith("(balanced)");
        Map<String, Long> malformedErrors = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> deadLetter : ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[2])) {
            if ("malformed".equals(ConsumedRecords.header(deadLetter, DeadLetterHeaders.REASON))) {
                String error = ConsumedRecords.header(deadLetter, DeadLetterHeaders.ERROR);
                Matcher kind = AVRO_MALFORMED.matcher(error);
                assertThat(kind.lookingAt()).as("names no field nor what is wrong with the record: %s", error).isTrue();
                malformedErrors.merge(kind.group(), 1L, Long::sum);
            }
        }
        System.out.println("Avro malformed dead letters by what they name: " + malformedErrors);
        assertThat(malformedErrors).containsKeys("missing field '/adId'", "'/requestId'", "'/ts'", "wrong magic byte");
    }

    /** How an Avro malformed dead letter begins: the field's path, or what is wrong with the record. */
    static final Pattern AVRO_MALFORMED = Pattern.compile("missing field '/[^']*'|'/[^']*'|truncated|\\d+ trailing bytes"
            + "|wrong magic byte|unexpected schema id|null value|empty value");

    static GroundTruth generate(String topic, Path dir, long count, long seed) throws Exception {
        return generate(topic, dir, count, seed, b -> b);
    }

    static GroundTruth generate(String topic, Path dir, long count, long seed, UnaryOperator<GeneratorSettings.Builder> format)
            throws Exception {
        Path truthFile = dir.resolve("truth.csv");
        GeneratorSettings settings = format.apply(GeneratorSettings.builder().count(count).seed(seed).span(Duration.ofDays(4))).build();
        try (KafkaTopicDestination destination = new KafkaTopicDestination(SharedKafka.broker().bootstrapServers(), topic, Map.of());
                GroundTruthWriter writer = new GroundTruthWriter(truthFile)) {
            Generation.run(new ImpressionGenerator(settings), count, destination, writer, 0, null);
        }
        return GroundTruth.read(truthFile);
    }

    static DedupJobConfig config(String[] topics, Path dir, String backend, int parallelism, String... extra) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(
                "--bootstrap-servers", SharedKafka.broker().bootstrapServers(),
                "--input-topic", topics[0], "--output-topic", topics[1], "--dlq-topic", topics[2],
                "--bounded", "--starting-offsets", "earliest", "--capacity", "25000", "--fpp", Double.toString(FPP),
                "--state-backend", backend, "--parallelism", Integer.toString(parallelism),
                "--checkpoint-interval", "2s", "--checkpoint-dir", dir.resolve("checkpoints").toUri().toString(),
                "--transactional-id-prefix", topics[1]));
        args.addAll(java.util.List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    static JobExecutionResult runBounded(DedupJobConfig config, ImpressionSource source) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(DedupJob.flinkConfiguration(config));
        env.setParallelism(config.parallelism().orElse(2));
        DedupJob.defineWorkflow(env, config, source, DedupJob.kafkaSinks(config));
        return env.execute(DedupJob.jobName(config));
    }

    static VerificationReport verify(GroundTruth truth, String[] topics) throws Exception {
        return Verifier.verifyTopics(truth, SharedKafka.broker().bootstrapServers(), topics[1], topics[2]);
    }
}
