package io.impressiondedup.local;

import static io.impressiondedup.local.EndToEndIT.FPP;
import static io.impressiondedup.local.EndToEndIT.config;
import static io.impressiondedup.local.EndToEndIT.runBounded;
import static io.impressiondedup.local.EndToEndIT.verify;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.impressiondedup.job.Accounting;
import io.impressiondedup.job.DedupJob;
import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.checks.SchemaRegistryChecks;
import io.impressiondedup.job.io.kafka.DeadLetterHeaders;
import io.impressiondedup.job.io.registry.WriterSchemas;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.StatsTopicCheck;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.write.Generation;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Avro input whose writer schemas a real schema registry holds (Apicurio Registry, {@link ApicurioRegistry}), through
 * both of its APIs, while the producer evolves its schema twice mid-stream ({@link EvolvingAvroSchemas}: two fields added
 * with defaults, then the optional one removed): every impression is deduplicated as the ground truth says, and the
 * evolution dead-letters nothing. The records of an id the registry does not know go to the dead letters as {@code
 * schema-unknown} while the job goes on; a registry that stops answering for 30 s holds the job back, and dead-letters
 * nothing.
 *
 * <p>In the second lane ({@link SecondLane}): it starts the registry, and waits through
 * its outage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class SchemaRegistryIT {

    static final int RECORDS = 12_000;
    static final Duration OUTAGE = Duration.ofSeconds(30);
    /** How long a bounded job may take here: a job that waits on the registry for good fails the test, never hangs it. */
    static final Duration JOB_DEADLINE = Duration.ofSeconds(300);

    private ApicurioRegistry registry;

    @BeforeAll
    void startRegistry() throws Exception {
        registry = ApicurioRegistry.shared();
    }

    /**
     * Confluent's wire format (4-byte ids) looked up through the Confluent-compatible API. The registry is stopped
     * (SIGSTOP) from the moment the job has fetched the first schema until {@link #OUTAGE} later: the records of the next
     * schema wait, and the job finishes once it answers again.
     */
    @Test
    void theConfluentApiServesEvolvingSchemasAndAnOutageHoldsTheJobBackWithoutADeadLetter(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("registry-confluent", 4);
        long[] ids = {
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V1),
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V2),
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V3)};
        assertThat(ids).doesNotHaveDuplicates();
        long[] written = produce(topics[0], dir, ids, EvolvingAvroSchemas.IdPlacement.CONFLUENT_PREFIX);
        String stats = topics[0] + "-stats";
        SharedKafka.broker().createTopics(Map.of(stats, 2));
        DedupJobConfig config = config(topics, dir, "hashmap", 2, "--input-format", "avro", "--avro-wire-prefix", "confluent",
                "--avro-schema-registry-url", registry.confluentApiUrl(), "--avro-schema-registry-timeout", "2s", "--stats-topic", stats);

        // The registry stops on the task thread that logs the first schema fetched, before that thread reads on.
        String firstFetched = "Writer schema id " + ids[0] + " fetched";
        CountDownLatch paused = new CountDownLatch(1);
        JobExecutionResult result;
        long stoppedAt;
        try (CapturedLog log = CapturedLog.of(WriterSchemas.class, event -> {
            if (paused.getCount() > 0 && event.startsWith(firstFetched)) {
                pauseRegistry();
                paused.countDown();
            }
        })) {
            CompletableFuture<JobExecutionResult> job = start(config);
            assertThat(paused.await(120, TimeUnit.SECONDS)).as("the job fetched schema 1").isTrue();
            stoppedAt = System.nanoTime();
            waitFor(() -> log.messages(Level.WARN).stream().anyMatch(m -> m.startsWith("No answer from the schema registry")),
                    "the job to find the registry not answering");
            assertThat(job).as("the job waits for the registry").isNotDone();
            long left = OUTAGE.toNanos() - (System.nanoTime() - stoppedAt);
            Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(left)));
            assertThat(job).as("the job waits for the registry").isNotDone();
            registry.resume();
            result = job.get(JOB_DEADLINE.toSeconds(), TimeUnit.SECONDS);
            assertThat(log.messages(Level.INFO)).anyMatch(m -> m.startsWith("The schema registry") && m.contains("answered for schema id"));
        } finally {
            registry.resume(); // the registry is shared by the tests of this JVM: never leave it stopped
        }

        VerificationReport report = assertExactAgainstTheGroundTruth(dir, topics, config, written, Map.of());
        assertThat(report.deadLettersByReason()).as(report.toText(FPP)).doesNotContainKey("schema-unknown");
        assertThat(Accounting.summary(result.getAllAccumulatorResults())).startsWith("input " + String.format("%,d", RECORDS) + " =")
                .endsWith("(balanced)");
        StatsTopicCheck check = StatsTopicCheck.run(dir.resolve("truth.csv"), SharedKafka.broker().bootstrapServers(), topics[0],
                topics[1], topics[2], stats);
        System.out.println("stats topic: " + check.summary());
        assertThat(check.problems()).as("the reconciliation rows against the ground truth").isEmpty();
    }

    /**
     * Apicurio's own wire format (8-byte global ids) looked up through Apicurio's own API (v3); and values that carry an id
     * the registry does not know, written among them: dead-lettered as schema-unknown, naming the id, and the job goes on.
     */
    @Test
    void apicuriosOwnApiServesEvolvingSchemasAndAnUnknownIdIsDeadLetteredAsSchemaUnknown(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("registry-apicurio", 4);
        String artifact = topics[0] + "-value";
        long[] ids = {
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V1, true).globalId(),
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V2, false).globalId(),
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V3, false).globalId()};
        assertThat(ids).doesNotHaveDuplicates();
        long[] written = produce(topics[0], dir, ids, EvolvingAvroSchemas.IdPlacement.APICURIO_PREFIX);
        long unknownId = 1L << 40;
        int unknownRecords = 3;
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < unknownRecords; i++) {
                byte[] value = ByteBuffer.allocate(12).put((byte) 0).putLong(unknownId).put(new byte[] {2, 'r', 0}).array();
                producer.send(new ProducerRecord<>(topics[0], i, null, value)).get();
            }
        }
        DedupJobConfig config = config(topics, dir, "hashmap", 2, "--input-format", "avro", "--avro-wire-prefix", "apicurio",
                "--avro-schema-registry-url", registry.apicurioApiUrl(), "--avro-schema-registry-api", "apicurio");

        JobExecutionResult result = start(config).get(JOB_DEADLINE.toSeconds(), TimeUnit.SECONDS);

        // The records of the unknown id carry none of the generator's headers: unidentified, and only they.
        assertExactAgainstTheGroundTruth(dir, topics, config, written, Map.of("unidentified records", (long) unknownRecords));
        List<ConsumerRecord<byte[], byte[]>> schemaUnknown = ConsumedRecords.readAll(SharedKafka.broker().bootstrapServers(), topics[2])
                .stream().filter(r -> "schema-unknown".equals(ConsumedRecords.header(r, DeadLetterHeaders.REASON))).toList();
        assertThat(schemaUnknown).hasSize(unknownRecords);
        assertThat(ConsumedRecords.header(schemaUnknown.get(0), DeadLetterHeaders.ERROR))
                .startsWith("writer schema id " + unknownId + " of the apicurio wire prefix: the registry answered 404");
        assertThat(Accounting.summary(result.getAllAccumulatorResults()))
                .startsWith("input " + String.format("%,d", RECORDS + unknownRecords) + " =").endsWith("(balanced)");
    }

    /**
     * Apicurio's headers (its 2.x serializers' default): the value is the record alone and the global id is in the header
     * {@code apicurio.value.globalId}; read through Apicurio's own API with {@code --avro-wire-prefix apicurio-headers}.
     * The generator's malformed records without a sound prefix come without the header: malformed, as the truth says.
     */
    @Test
    void apicuriosGlobalIdHeaderNamesEvolvingSchemas(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("registry-headers", 4);
        String artifact = topics[0] + "-value";
        long[] ids = {
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V1, true).globalId(),
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V2, false).globalId(),
            registry.registerThroughApicurioApi(artifact, EvolvingAvroSchemas.V3, false).globalId()};
        long[] written = produce(topics[0], dir, ids, EvolvingAvroSchemas.IdPlacement.GLOBAL_ID_HEADER);
        DedupJobConfig config = config(topics, dir, "hashmap", 2, "--input-format", "avro", "--avro-wire-prefix", "apicurio-headers",
                "--avro-schema-registry-url", registry.apicurioApiUrl(), "--avro-schema-registry-api", "apicurio");

        JobExecutionResult result = start(config).get(JOB_DEADLINE.toSeconds(), TimeUnit.SECONDS);

        VerificationReport report = assertExactAgainstTheGroundTruth(dir, topics, config, written, Map.of());
        assertThat(Accounting.summary(result.getAllAccumulatorResults())).startsWith("input " + String.format("%,d", RECORDS) + " =")
                .endsWith("(balanced)");
    }

    /**
     * The registry behind TLS and basic authentication, as production exposes it: the job reads through it with the
     * credentials file and the registry's certificate; and the checks at submission fail naming the option for a
     * certificate not trusted, credentials refused, and a URL that is not the API's base.
     */
    @Test
    void aRegistryBehindTlsAndBasicAuthIsReadWithTheCredentialsFileAndItsCertificate(@TempDir Path dir) throws Exception {
        String[] topics = SharedKafka.topics("registry-tls", 4);
        long[] ids = {
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V1),
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V2),
            registry.registerThroughConfluentApi(topics[0] + "-value", EvolvingAvroSchemas.V3)};
        long[] written = produce(topics[0], dir, ids, EvolvingAvroSchemas.IdPlacement.CONFLUENT_PREFIX);
        Path credentials = Files.writeString(dir.resolve("registry.credentials"), "dedup:s3cr3t\n");
        Path wrongCredentials = Files.writeString(dir.resolve("wrong.credentials"), "dedup:guess\n");
        DedupJobConfig config;
        try (TlsBasicAuthProxy proxy = TlsBasicAuthProxy.start(registry.root(), dir, "dedup", "s3cr3t")) {
            String url = proxy.url() + "/apis/ccompat/v7";
            String trusted = proxy.certificatePem().toString();
            assertThatThrownBy(() -> SchemaRegistryChecks.atSubmission(registryConfig(topics, dir, url, "--avro-schema-registry-credentials-file",
                    credentials.toString()))).isInstanceOf(InvalidOptionException.class)
                    .hasMessageStartingWith("No TLS connection to the schema registry at --avro-schema-registry-url " + url
                            + ": its certificate is not trusted (give its CA with --avro-schema-registry-trusted-certificates)");
            assertThatThrownBy(() -> SchemaRegistryChecks.atSubmission(registryConfig(topics, dir, url, "--avro-schema-registry-credentials-file",
                    wrongCredentials.toString(), "--avro-schema-registry-trusted-certificates", trusted)))
                    .hasMessageStartingWith("The schema registry at --avro-schema-registry-url " + url + " refused the job's credentials"
                            + " (--avro-schema-registry-credentials-file): HTTP 401");
            assertThatThrownBy(() -> SchemaRegistryChecks.atSubmission(registryConfig(topics, dir, proxy.url(),
                    "--avro-schema-registry-credentials-file", credentials.toString(), "--avro-schema-registry-trusted-certificates", trusted)))
                    .hasMessageStartingWith("--avro-schema-registry-url " + proxy.url() + " is not the base URL of a confluent API");
            config = registryConfig(topics, dir, url, "--avro-schema-registry-credentials-file", credentials.toString(),
                    "--avro-schema-registry-trusted-certificates", trusted);
            SchemaRegistryChecks.atSubmission(config);
            int refusedBefore = proxy.refusedRequests();

            start(config).get(JOB_DEADLINE.toSeconds(), TimeUnit.SECONDS);

            assertThat(proxy.refusedRequests()).as("requests refused while the job ran").isEqualTo(refusedBefore);
            // Two checks got past the authentication (the URL that is not the API's, and the last); then each of the two source
            // subtasks (two input partitions each, records of every schema in each) fetched each of the three schemas once.
            assertThat(proxy.authorizedRequests()).as("requests with the credentials").isEqualTo(2 + 2 * 3);
        }
        assertExactAgainstTheGroundTruth(dir, topics, config, written, Map.of());
    }

    private static DedupJobConfig registryConfig(String[] topics, Path dir, String url, String... extra) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("--input-format", "avro", "--avro-wire-prefix", "confluent",
                "--avro-schema-registry-url", url));
        args.addAll(List.of(extra));
        return config(topics, dir, "hashmap", 2, args.toArray(new String[0]));
    }

    /**
     * The job's output against the ground truth: every schema written (a quarter of the records at least, complete), the
     * exactly-once violations just {@code expectedViolations}, the false positives within the filters' bound.
     */
    private static VerificationReport assertExactAgainstTheGroundTruth(Path dir, String[] topics, DedupJobConfig config, long[] written,
            Map<String, Long> expectedViolations) throws Exception {
        VerificationReport report = verify(GroundTruth.read(dir.resolve("truth.csv")), topics);
        String text = report.toText(FPP);
        System.out.println(text + "\nrecords by schema (complete records): " + java.util.Arrays.toString(written));
        assertThat(java.util.Arrays.stream(written).boxed().toList()).as("complete records written with each schema")
                .allMatch(n -> n > RECORDS / 4);
        assertThat(report.exactlyOnceViolations()).as(text).isEqualTo(expectedViolations);
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(dir.resolve("truth.csv"), config.dedupSettings().plan())))
                .as(text).isEmpty();
        return report;
    }

    /** Writes {@link #RECORDS} generated Avro records, evolving at thirds; returns the complete records of each schema. */
    private static long[] produce(String topic, Path dir, long[] ids, EvolvingAvroSchemas.IdPlacement placement) throws Exception {
        // No late records: the job waits on the registry, and whether a record is late would depend on that timing.
        GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(38).span(Duration.ofDays(4))
                .format(ValueFormat.AVRO).avroSchemaId(1).lateShare(0).build();
        try (EvolvingAvroSchemas destination = new EvolvingAvroSchemas(
                        new KafkaTopicDestination(SharedKafka.broker().bootstrapServers(), topic, Map.of()), RECORDS, ids, placement);
                GroundTruthWriter truth = new GroundTruthWriter(dir.resolve("truth.csv"))) {
            Generation.run(new ImpressionGenerator(settings), RECORDS, destination, truth, 0, null);
            return destination.writtenBySchema();
        }
    }

    /** The bounded job of {@code config}, started on a MiniCluster. */
    private static CompletableFuture<JobExecutionResult> start(DedupJobConfig config) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return runBounded(config, DedupJob.kafkaSource(config));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    private static KafkaProducer<byte[], byte[]> producer() throws Exception {
        Properties properties = new Properties();
        properties.put("bootstrap.servers", SharedKafka.broker().bootstrapServers());
        return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void pauseRegistry() {
        try {
            registry.pause();
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the registry", e);
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
