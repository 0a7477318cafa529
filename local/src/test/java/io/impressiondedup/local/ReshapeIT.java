package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code dedup-tools reshape} as an operator would chain it: the job runs on the real 2.2.1 standalone cluster with the
 * default 128 shards in the fingerprint format and is stopped with a savepoint; the tools (Flink 2.3, their own JVM)
 * rewrite it for 64 shards (a quiet week), that for 128 again (Monday), and that for 256 (traffic outgrows the count);
 * the job resumes from the last with {@code --shards 256} and twice the capacity (no rewrite needed for that) while the
 * rest of the stream arrives, holding re-sent copies of impressions from before the reshapes, with old and new
 * timestamps, and impressions hours late. Against the exact reference: no copy passes, nothing is lost or written
 * twice, and the false positives stay within {@link FalsePositiveLimit} (computed for the first plan, 128 shards: the
 * same capacity per shard, and fuller buckets than after the reshapes, so an upper bound). (The original savepoint
 * cannot be resumed with 256 shards: the operator refuses it, see {@code
 * DedupOperatorTest.restoringWithAnotherShardCountFailsNamingBothCounts}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedCluster.class)
class ReshapeIT {

    static final double FPP = 0.001;
    static final int RECORDS = 60_000;
    static final String GROUP = "reshape-it";
    static final String INPUT = "reshape-impressions";
    static final String OUTPUT = "reshape-deduplicated";
    static final String DEAD_LETTERS = "reshape-dead-letters";

    private StandaloneCluster cluster;
    private String bootstrap;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = SharedCluster.cluster();
        bootstrap = cluster.bootstrapServers();
    }

    @Test
    void aSavepointReshapedFrom128To64To128To256ShardsRestoresAndDropsEveryCopyOfWhatCameBefore() throws Exception {
        long started = System.nanoTime();
        KafkaTopics.create(bootstrap, Map.of(INPUT, 4, OUTPUT, 4, DEAD_LETTERS, 1), Map.of());
        Path runDir = cluster.runDir();
        Path truthFile = runDir.resolve("reshape-truth.csv");
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(128256)
                .span(Duration.ofDays(4)).delayedShare(0.02).build());
        List<String> jobArgs = List.of("--bootstrap-servers", bootstrap, "--input-topic", INPUT,
                "--output-topic", OUTPUT, "--dlq-topic", DEAD_LETTERS, "--capacity", "20000",
                "--fpp", Double.toString(FPP), "--checkpoint-interval", "2s", "--starting-offsets", "earliest",
                "--group-id", GROUP, "--transactional-id-prefix", "reshape-it", "--state-format", "fingerprints");
        List<String> reshapedArgs = new ArrayList<>(jobArgs);
        reshapedArgs.addAll(List.of("--shards", "256", "--capacity", "40000")); // the last --capacity wins

        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, INPUT, Map.of())) {
            ClusterIT.produce(generator, RECORDS / 2, input, truth);
            String first = cluster.submit(2, jobArgs);
            awaitCaughtUp(first);
            String savepoint = cluster.script("job.sh", "stop-with-savepoint", first).trim();

            String reshaped = savepoint;
            int from = 128;
            for (int shards : new int[] {64, 128, 256}) {
                String output = runDir.resolve("reshaped-" + from + "-" + shards).toUri().toString();
                DedupToolsProcess.Result result = DedupToolsProcess.run(runDir, "reshape", "--savepoint", reshaped, "--output", output,
                        "--shards", Integer.toString(shards), "--parallelism", "2").succeeded();
                System.out.print(result.stdout());
                assertThat(result.stdout()).contains("from " + from + " to " + shards + " shards");
                reshaped = output;
                from = shards;
            }

            ClusterIT.produce(generator, RECORDS - RECORDS / 2, input, truth); // copies of the first half, late ones among them
            String second = cluster.submit(2, reshaped, reshapedArgs);
            awaitCaughtUp(second);
            cluster.script("job.sh", "stop-with-savepoint", second);
        }

        VerificationReport report = Verifier.verifyTopics(GroundTruth.read(truthFile), bootstrap, OUTPUT, DEAD_LETTERS);
        String text = report.toText(FPP);
        System.out.println(text);
        System.out.printf("reshape test took %.0f s%n", (System.nanoTime() - started) / 1e9);
        assertThat(report.input()).isEqualTo(RECORDS);
        assertThat(report.duplicatesDropped()).as(text).isPositive();
        assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
        assertThat(FalsePositiveLimit.exceeded(report, FalsePositiveLimit.of(truthFile, jobArgs))).as(text).isEmpty(); // 128 shards: fuller filters
    }

    private void awaitCaughtUp(String job) throws Exception {
        CheckpointedCatchUp.await(cluster, job, GROUP, INPUT, List.of(OUTPUT, DEAD_LETTERS), Duration.ofSeconds(300));
    }
}
