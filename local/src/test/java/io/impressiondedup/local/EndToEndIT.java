package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.DedupStage;
import io.impressiondedup.job.ImpressionSource;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import io.impressiondedup.job.io.eventtime.ImpressionWatermarks;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.state.plan.FalsePositiveBound;
import io.impressiondedup.state.time.TimeBuckets;
import io.impressiondedup.testdata.write.Generation;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The production topology on a real broker and a local Flink cluster, fed generated impressions and
 * judged by the ground-truth verifier: no duplicate passes, nothing is lost or written twice, every
 * dead letter has the right reason, and the false positives stay within {@link FalsePositiveLimit}.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class EndToEndIT {

    static final double FPP = 0.001;

    /**
     * The plan of the generated-data case: about 20,000 unique impressions a day against a plan of 3,000, so each shard's
     * filter (planned for 44: its share of 3,000 plus the spread) receives about 156, 3.5x its plan, and grows two layers;
     * at FPP 0.01, so that the false positives expected of the promised sizing are a few hundred and the Chernoff limit
     * sits about 1.3x above them. A sizing that gives each bucket the whole FPP instead of FPP / buckets checked (5 here)
     * answers falsely about 5x as often and shows more than the limit; at the usual plan (25,000 at 0.001, filters 60%
     * full) the expectation is below 1, the limit 8, and the same defect shows 2.
     */
    static final long OVER_PLAN_CAPACITY = 3_000;
    static final double OVER_PLAN_FPP = 0.01;
    /** Times its planned capacity a shard's filter holds, at least, in the busiest buckets of the generated-data case. */
    static final double OVER_PLAN_FACTOR = 3.0;

    @Test
    void generatedImpressionsOverPlanAreDeduplicatedAsTheGroundTruthSays(@TempDir Path dir) throws Exception {
        // One partition per source reader: a reader's watermark is the lowest of its partitions', and one whose records
        // so far were all dead letters (which carry no time) would hold it back until it went idle, while the reader holds.
        String[] topics = SharedKafka.topics("e2e", 2);
        GroundTruth truth = generate(topics[0], dir, 100_000, 11);
        DedupJobConfig config = config(topics, dir, "rocksdb", 2,
                "--capacity", Long.toString(OVER_PLAN_CAPACITY), "--fpp", Double.toString(OVER_PLAN_FPP));
        DedupPlan plan = config.dedupSettings().plan();
        assertThat(busiestBucketsOverPlan(truth, dir.resolve("truth.csv"), plan, 3))
                .as("unique impressions per shard over the planned %,d of a shard's filter, in the 3 busiest buckets",
                        plan.capacityPerShard())
                .allSatisfy(overPlan -> assertThat(overPlan).isGreaterThan(OVER_PLAN_FACTOR));
        long newestLate = newestEventTime(truth, dir.resolve("truth.csv"), RecordClass.LATE);
        TimeBuckets buckets = plan.timeBuckets();

        JobExecutionResult result = runBounded(config, heldAfterTheFirstImpression(config),
                openingOnceEveryDedupWatermark(w -> buckets.isLate(newestLate, w), 2));

        assertThat(InputGate.readersHeld()).as("source readers that held their input").isEqualTo(2);
        assertThat(buckets.isLate(newestLate, OpenGateAtWatermark.watermarkAtOpening())).isTrue();
        VerificationReport report = verify(truth, topics);
        FalsePositiveBound bound = FalsePositiveLimit.of(dir.resolve("truth.csv"), plan);
        System.out.println(report.toText(OVER_PLAN_FPP) + "\n" + bound.describe(report.falsePositives()));
        assertThat(report.exactlyOnceViolations()).as(report.toText(OVER_PLAN_FPP)).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, bound)).isEmpty();
        assertThat(report.deadLettersByReason()).containsKeys("late", "malformed", "oversized", "future-timestamp");
        assertThat(Accounting.summary(result.getAllAccumulatorResults())).startsWith("input 100,000 =").endsWith("(balanced)");
    }

    /**
     * For the {@code count} buckets with the most unique impressions in a ground truth, highest first: a shard's mean share
     * of them over {@link DedupPlan#capacityPerShard()}. A filter's layers hold 1, 3, 7, ... times its plan together, so
     * above 3 the mean shard's filter has added two growth layers. The unique impressions are a lower bound of what the
     * job inserts (copies beyond the retention pass as new too).
     */
    static List<Double> busiestBucketsOverPlan(GroundTruth truth, Path truthFile, DedupPlan plan, int count) throws Exception {
        long[] eventTimes = GroundTruth.eventTimes(truthFile);
        TimeBuckets buckets = plan.timeBuckets().copy();
        Map<Long, Long> uniquePerBucket = new TreeMap<>();
        for (int seq = 0; seq < truth.size(); seq++) {
            if (truth.recordClass(seq) == RecordClass.UNIQUE) {
                uniquePerBucket.merge(buckets.bucketOf(eventTimes[seq]), 1L, Long::sum);
            }
        }
        return uniquePerBucket.values().stream().sorted(Comparator.reverseOrder()).limit(count)
                .map(unique -> (double) unique / plan.shards() / plan.capacityPerShard()).toList();
    }

    /**
     * Lateness is judged from the watermark, not from how far a record is behind the newest event time: an impression
     * one allowed lateness behind the watermark (so the allowed lateness plus the out-of-orderness and 1 ms behind the
     * newest impression) is deduplicated and passes; one a millisecond older is dead-lettered as late. The reader
     * holds after the newest impression until the dedup operator's watermark is the one it makes (newest - 5 min -
     * 1 ms), which then stays put: no later record is newer.
     */
    @Test
    void aRecordBehindTheNewestImpressionButNotBehindTheWatermarkPassesAndOneMillisecondOlderIsLate(@TempDir Path dir)
            throws Exception {
        String[] topics = SharedKafka.topics("e2e-lateness", 1);
        DedupJobConfig config = config(topics, dir, "hashmap", 1);
        long newest = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(1)).toEpochMilli();
        long watermark = newest - config.maxOutOfOrderness().toMillis() - 1;
        long allowedLateness = config.dedupSettings().plan().timeBuckets().allowedLateness().toMillis();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                SharedKafka.broker().bootstrapServers(), "acks", "all"), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (String[] record : new String[][] {
                    {"newest", Long.toString(newest)},
                    {"in-time", Long.toString(watermark - allowedLateness)},
                    {"late", Long.toString(watermark - allowedLateness - 1)}}) {
                String json = "{\"requestId\":\"" + record[0] + "\",\"adId\":\"ad-1\",\"ts\":" + record[1] + "}";
                producer.send(new ProducerRecord<>(topics[0], record[0].getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8))).get();
            }
        }

        runBounded(config, heldAfterTheFirstImpression(config), openingOnceEveryDedupWatermark(w -> w >= watermark, 1));

        assertThat(OpenGateAtWatermark.watermarkAtOpening()).isEqualTo(watermark);
        String bootstrap = SharedKafka.broker().bootstrapServers();
        assertThat(ConsumedRecords.requestIds(ConsumedRecords.readAll(bootstrap, topics[1]))).containsExactlyInAnyOrder("newest", "in-time");
        List<ConsumerRecord<byte[], byte[]>> deadLetters = ConsumedRecords.readAll(bootstrap, topics[2]);
        assertThat(ConsumedRecords.requestIds(deadLetters)).containsExactly("late");
        assertThat(ConsumedRecords.header(deadLetters.get(0), DeadLetterHeaders.REASON)).isEqualTo("late");
    }

    /**
     * Each source reader holds after its first impression. The dedup operator has no watermark before every reader has
     * emitted one, and a replay at full speed can read half the stream before that, passing every record as in time;
     * while the readers hold, their watermarks reach the dedup operator ahead of any later record.
     */
    static ImpressionSource heldAfterTheFirstImpression(DedupJobConfig config) {
        return kafkaSourceHeldAfter(config, (record, emitted) -> record.isImpression());
    }

    /** The job's Kafka source ({@link DedupJob#kafkaSource}) with an {@link InputGate} (reset here) around the Kafka reader. */
    static ImpressionSource kafkaSourceHeldAfter(DedupJobConfig config, InputGate.HoldAfter<ParsedRecord> holdAfter) {
        InputGate.reset();
        return env -> env.fromSource(InputGate.around(KafkaConnectors.source(config), holdAfter),
                        ImpressionWatermarks.strategy(config.maxOutOfOrderness(), config.idleness()),
                        KafkaConnectors.SOURCE_NAME, ParsedRecord.TYPE_INFO)
                .uid(KafkaConnectors.SOURCE_UID);
    }

    /** The job's dedup stage, followed by {@link OpenGateAtWatermark}: the gate opens once all its subtasks' watermarks meet the condition. */
    static DedupStage openingOnceEveryDedupWatermark(OpenGateAtWatermark.Condition condition, int parallelism) {
        OpenGateAtWatermark.reset();
        return (impressions, config) -> {
            DedupStage.Deduplicated dedup = DedupJob.dedupStage().attach(impressions, config);
            DataStream<Impression> unique = dedup.unique().transform("Open the input gate at a watermark", Impression.TYPE_INFO,
                    new OpenGateAtWatermark<Impression>(condition, parallelism));
            return new DedupStage.Deduplicated(unique, dedup.late(), dedup.duplicates(), dedup.outcomes());
        };
    }

    /** The highest event time of the records of a class in a ground truth. */
    static long newestEventTime(GroundTruth truth, Path truthFile, RecordClass recordClass) throws Exception {
        long[] eventTimes = GroundTruth.eventTimes(truthFile);
        long newest = Long.MIN_VALUE;
        for (int seq = 0; seq < truth.size(); seq++) {
            if (truth.recordClass(seq) == recordClass) {
                newest = Math.max(newest, eventTimes[seq]);
            }
        }
        assertThat(newest).as("the newest %s record", recordClass.label()).isNotEqualTo(Long.MIN_VALUE);
        return newest;
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
        // No late records: without the input held until the job has a watermark, whether one is late would depend on
        // timing, not on the format; the first case covers lateness.
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
        return runBounded(config, source, DedupJob.dedupStage());
    }

    static JobExecutionResult runBounded(DedupJobConfig config, ImpressionSource source, DedupStage dedup) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(DedupJob.flinkConfiguration(config));
        env.setParallelism(config.parallelism().orElse(2));
        DedupJob.defineWorkflow(env, config, source, dedup, DedupJob.kafkaSinks(config));
        return env.execute(DedupJob.jobName(config));
    }

    static VerificationReport verify(GroundTruth truth, String[] topics) throws Exception {
        return Verifier.verifyTopics(truth, SharedKafka.broker().bootstrapServers(), topics[1], topics[2]);
    }
}
