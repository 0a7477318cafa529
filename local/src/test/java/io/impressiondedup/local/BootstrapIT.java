package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.testdata.KafkaTopics;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * {@code dedup-tools bootstrap} (Flink 2.3, its own JVM) writes a savepoint from a history; the job (Flink 2.2.1, a
 * real standalone cluster) started from it must drop every re-sent copy of that history, with its old or a new
 * timestamp, in time or hours late, and pass new impressions (losses within the FPP). Checked against an exact
 * reference: the identities (request id, ad id) of the history and of the new impressions, on the job's
 * read-committed output.
 *
 * <p>(a) The history is a file of rows over the last two days. (b) The history is the output topic of the job run
 * of (a), as after lost checkpoints: a new job started from its bootstrap must drop copies of what (a) emitted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(SharedCluster.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BootstrapIT {

    static final double FPP = 0.001;
    static final int HISTORY = 20_000;
    static final int COPIES = 6_000;
    static final int NEW = 5_000;
    static final List<String> PLAN = List.of("--capacity", "30000", "--fpp", Double.toString(FPP));

    private final ObjectMapper json = new ObjectMapper();
    private final long now = System.currentTimeMillis();
    private StandaloneCluster cluster;
    private Path runDir;
    private String bootstrap;
    /** The identities (request id, ad id) the job of (a) emitted. */
    private Set<String> emittedByA;

    @BeforeAll
    void startCluster() throws Exception {
        cluster = SharedCluster.cluster();
        runDir = cluster.runDir();
        bootstrap = cluster.bootstrapServers();
    }

    @Test
    @Order(1)
    void aJobStartedFromAFileBootstrapDropsEveryCopyOfTheHistoryAndPassesNewImpressions() throws Exception {
        long started = System.nanoTime();
        Random random = new Random(41);
        List<Impression> history = new ArrayList<>();
        List<String> rows = new ArrayList<>(List.of("requestId,adId,timestamp"));
        for (int i = 0; i < HISTORY; i++) {
            Impression impression = new Impression("hist-" + i, "ad-" + random.nextInt(50), now - random.nextLong(Duration.ofDays(2).toMillis()));
            history.add(impression);
            rows.add(impression.requestId + "," + impression.adId + "," + (i % 2 == 0 ? Long.toString(impression.time)
                    : Instant.ofEpochMilli(impression.time).toString()));
        }
        Path file = Files.write(runDir.resolve("history.csv"), rows, StandardCharsets.UTF_8);
        String savepoint = runDir.resolve("bootstrap-from-file").toString();
        // --as-of given (no first pass for the newest timestamp); (b) takes the default.
        List<String> args = new ArrayList<>(List.of("bootstrap", "--from-file", file.toString(), "--output", savepoint,
                "--as-of", Instant.ofEpochMilli(now).toString()));
        args.addAll(PLAN);
        DedupToolsProcess.Result result = DedupToolsProcess.run(runDir, args).succeeded();
        System.out.println(result.stdout());
        assertThat(inserted(result)).as("a few unique rows may meet a false positive of the filter they go into")
                .isBetween((long) (HISTORY * (1 - 4 * FPP)), (long) HISTORY);

        List<Impression> input = copiesAndNew(history, random, "new-a-");
        Set<String> output = runJob("a", savepoint, input);
        assertVerdicts(history, input, output, "a");
        emittedByA = output;
        System.out.printf("bootstrap from a file: %.0f s%n", (System.nanoTime() - started) / 1e9);
    }

    @Test
    @Order(2)
    void aJobStartedFromABootstrapOfTheOutputTopicDropsCopiesOfWhatTheLostJobEmitted() throws Exception {
        assertThat(emittedByA).as("the output of (a)").isNotNull();
        long started = System.nanoTime();
        String savepoint = runDir.resolve("bootstrap-from-topic").toString();
        List<String> args = new ArrayList<>(List.of("bootstrap", "--from-topic", "out-a", "--bootstrap-servers", bootstrap,
                "--output", savepoint));
        args.addAll(PLAN);
        DedupToolsProcess.Result result = DedupToolsProcess.run(runDir, args).succeeded();
        System.out.println(result.stdout());
        assertThat(inserted(result)).isBetween((long) (emittedByA.size() * (1 - 4 * FPP)), (long) emittedByA.size());

        List<Impression> history = readImpressions("out-a");
        long newest = history.stream().mapToLong(Impression::time).max().orElseThrow();
        assertThat(result.stderr()).as("the first pass over the topic finds the newest timestamp of its impressions")
                .contains("--as-of " + java.time.Instant.ofEpochMilli(newest) + " (the newest timestamp in the history)");
        Random random = new Random(42);
        List<Impression> input = copiesAndNew(history, random, "new-b-");
        Set<String> output = runJob("b", savepoint, input);
        assertVerdicts(history, input, output, "b");
        System.out.printf("bootstrap from the output topic: %.0f s%n", (System.nanoTime() - started) / 1e9);
    }

    /** The impressions the summary says were inserted. */
    private static long inserted(DedupToolsProcess.Result result) {
        java.util.regex.Matcher matcher = java.util.regex.Pattern.compile("inserted +([0-9,]+)\n").matcher(result.stdout());
        assertThat(matcher.find()).as(result.stdout()).isTrue();
        return Long.parseLong(matcher.group(1).replace(",", ""));
    }

    /**
     * Re-sent copies of the history (half with their own timestamp, half re-stamped later, up to the retention apart
     * and never after now), and new impressions from the last 20 hours (hours late ones included), shuffled.
     */
    private List<Impression> copiesAndNew(List<Impression> history, Random random, String newPrefix) {
        List<Impression> input = new ArrayList<>();
        for (int i = 0; i < COPIES; i++) {
            Impression original = history.get(random.nextInt(history.size()));
            long time = i % 2 == 0 ? original.time : Math.min(now, original.time + random.nextLong(Duration.ofDays(2).toMillis()));
            input.add(new Impression(original.requestId, original.adId, time));
        }
        for (int i = 0; i < NEW; i++) {
            input.add(new Impression(newPrefix + i, "ad-" + random.nextInt(50), now - random.nextLong(Duration.ofHours(20).toMillis())));
        }
        Collections.shuffle(input, random);
        return input;
    }

    /** Runs the job from {@code savepoint} over {@code input} until all of it is committed; returns the identities it emitted. */
    private Set<String> runJob(String name, String savepoint, List<Impression> input) throws Exception {
        String in = "in-" + name;
        String out = "out-" + name;
        String dlq = "dlq-" + name;
        String group = "bootstrap-it-" + name;
        KafkaTopics.create(bootstrap, Map.of(in, 2, out, 2, dlq, 1), Map.of());
        produce(in, input);
        List<String> jobArgs = new ArrayList<>(List.of("--bootstrap-servers", bootstrap, "--input-topic", in, "--output-topic", out,
                "--dlq-topic", dlq, "--checkpoint-interval", "2s", "--starting-offsets", "earliest", "--group-id", group,
                "--transactional-id-prefix", group));
        jobArgs.addAll(PLAN);
        String jobId = cluster.submit(2, savepoint, jobArgs);
        try {
            CheckpointedCatchUp.await(cluster, jobId, group, in, List.of(out, dlq), Duration.ofSeconds(180));
        } finally {
            cluster.cancel(jobId);
        }
        Set<String> emitted = new HashSet<>();
        for (Impression impression : readImpressions(out)) {
            assertThat(emitted.add(impression.identity())).as("%s emitted twice", impression.identity()).isTrue();
        }
        return emitted;
    }

    /** Zero copies of the history passed; new impressions passed but for at most the FPP bound's share. */
    private void assertVerdicts(List<Impression> history, List<Impression> input, Set<String> output, String run) {
        Set<String> known = new HashSet<>();
        history.forEach(impression -> known.add(impression.identity()));
        Set<String> fresh = new HashSet<>();
        for (Impression impression : input) {
            if (!known.contains(impression.identity())) {
                fresh.add(impression.identity());
            }
        }
        Set<String> passedCopies = new HashSet<>(output);
        passedCopies.retainAll(known);
        Set<String> lost = new HashSet<>(fresh);
        lost.removeAll(output);
        System.out.printf("run %s: %d copies of the history sent, %d passed; %d new impressions, %d passed, %d lost%n", run,
                input.size() - fresh.size(), passedCopies.size(), fresh.size(), fresh.size() - lost.size(), lost.size());
        assertThat(passedCopies).as("copies of the history that passed (false negatives)").isEmpty();
        assertThat(output).as("what the job emitted beyond the new impressions").isSubsetOf(fresh);
        // Each new impression meets at most four filters of its shard; 3x that expectation leaves room for chance.
        assertThat((double) lost.size()).as("new impressions wrongly dropped").isLessThanOrEqualTo(Math.max(5, 3 * 4 * FPP * fresh.size()));
    }

    private void produce(String topic, List<Impression> impressions) throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (Impression impression : impressions) {
                producer.send(new ProducerRecord<>(topic, json.writeValueAsBytes(
                        Map.of("requestId", impression.requestId, "adId", impression.adId, "ts", impression.time, "campaign", "c7"))));
            }
            producer.flush();
        }
    }

    /** Every committed record of {@code topic}, as impressions. */
    private List<Impression> readImpressions(String topic) throws Exception {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<Impression> impressions = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                assertThat(System.nanoTime()).as("reading %s to its end offsets", topic).isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    JsonNode value = json.readTree(record.value());
                    impressions.add(new Impression(value.get("requestId").asText(), value.get("adId").asText(), value.get("ts").asLong()));
                }
            }
        }
        return impressions;
    }

    private record Impression(String requestId, String adId, long time) {
        String identity() {
            return requestId + "\u0000" + adId;
        }
    }
}
