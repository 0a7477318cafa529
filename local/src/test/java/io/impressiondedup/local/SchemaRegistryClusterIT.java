package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.io.registry.WriterSchemas;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import io.impressiondedup.testdata.write.Generation;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The job's shaded jar reading Avro through a real schema registry (Apicurio, {@link ApicurioRegistry}) on the
 * standalone cluster, submitted over REST as users run it: its relocated client fetches the producer's evolving
 * schemas, the output is exactly once, and the registry metrics are on the TaskManager's Prometheus reporter, one
 * {@code writer-schema-records} series per schema id. (The registry's behaviour itself: {@link SchemaRegistryIT}.) In the
 * second lane ({@link SecondLane}), which is shorter than the shared cluster's.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class SchemaRegistryClusterIT {

    static final int RECORDS = 12_000;

    @Test
    void theShadedJarOnTheClusterReadsEvolvingSchemasFromTheRegistryAndExportsItsMetrics() throws Exception {
        try (StandaloneCluster cluster = StandaloneCluster.start("schema-registry-cluster-it", 1)) {
            run(cluster);
        }
    }

    private static void run(StandaloneCluster cluster) throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String input = "registry-cluster-impressions";
        String output = "registry-cluster-deduplicated";
        String deadLetters = "registry-cluster-dead-letters";
        KafkaTopics.create(bootstrap, Map.of(input, 2, output, 2, deadLetters, 1), Map.of());
        Path dir = cluster.runDir().resolve("schema-registry-cluster-it");
        Path truthFile = dir.resolve("truth.csv");
        ApicurioRegistry registry = ApicurioRegistry.shared();
        {
            long[] ids = {
                registry.registerThroughConfluentApi(input + "-value", EvolvingAvroSchemas.V1),
                registry.registerThroughConfluentApi(input + "-value", EvolvingAvroSchemas.V2),
                registry.registerThroughConfluentApi(input + "-value", EvolvingAvroSchemas.V3)};
            GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(39).span(Duration.ofDays(4))
                    .format(ValueFormat.AVRO).avroSchemaId(1).lateShare(0).build();
            java.nio.file.Files.createDirectories(dir);
            try (EvolvingAvroSchemas destination = new EvolvingAvroSchemas(new KafkaTopicDestination(bootstrap, input, Map.of()),
                            RECORDS, ids, EvolvingAvroSchemas.IdPlacement.CONFLUENT_PREFIX);
                    GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
                Generation.run(new ImpressionGenerator(settings), RECORDS, destination, truth, 0, null);
            }
            String job = cluster.submit(2, List.of("--bootstrap-servers", bootstrap, "--input-topic", input, "--output-topic", output,
                    "--dlq-topic", deadLetters, "--capacity", "20000", "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
                    "--group-id", "registry-cluster-it", "--transactional-id-prefix", "registry-cluster-it", "--input-format", "avro",
                    "--avro-wire-prefix", "confluent", "--avro-schema-registry-url", registry.confluentApiUrl()));
            CheckpointedCatchUp.await(cluster, job, "registry-cluster-it", input, List.of(output, deadLetters), Duration.ofSeconds(180));

            String scrape = ClusterIT.ofJob(cluster.scrapePrometheus(), job);
            for (String metric : List.of(WriterSchemas.CACHE_HITS, WriterSchemas.CACHE_MISSES, WriterSchemas.REGISTRY_ERRORS,
                    WriterSchemas.REGISTRY_LATENCY)) {
                assertThat(scrape).as("Prometheus series of %s", metric)
                        .contains("flink_taskmanager_job_task_operator_deserializer_" + metric.replace('-', '_'));
            }
            for (long id : ids) {
                assertThat(scrape).as("records of writer schema id %d", id).containsPattern(
                        "flink_taskmanager_job_task_operator_deserializer_writer_schema_id_writer_schema_records\\{[^}]*writer_schema_id=\"" + id + "\"");
            }
            // The observability pack's panel of these metrics names only what this job exports, and selects its series.
            Map<String, java.util.Set<String>> used = new java.util.TreeMap<>(ObservabilityPack.metricNames());
            used.keySet().removeIf(name -> !ObservabilityPack.readsSchemaRegistry(name));
            assertThat(used).as("schema registry metrics named in deploy/observability").isNotEmpty();
            assertThat(ObservabilityPack.exportedNames(scrape)).as("what the registry job exports").containsAll(used.keySet());
            List<ObservabilityPack.LabelMatcher> matchers = ObservabilityPack.labelMatchers().stream()
                    .filter(matcher -> ObservabilityPack.readsSchemaRegistry(matcher.metric())).toList();
            assertThat(matchers).as("label matchers of the registry panel").isNotEmpty()
                    .allMatch(matcher -> ObservabilityPack.selectsSomeSeries(matcher, scrape));
            cluster.script("job.sh", "stop-with-savepoint", job);
        }

        VerificationReport report = Verifier.verifyTopics(GroundTruth.read(truthFile), bootstrap, output, deadLetters);
        String text = report.toText(0.001);
        System.out.println(text);
        assertThat(report.input()).isEqualTo(RECORDS);
        assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
    }
}
