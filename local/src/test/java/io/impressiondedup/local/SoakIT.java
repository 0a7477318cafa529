package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.KafkaTopics;
import io.impressiondedup.testdata.verify.VerificationReport;
import io.impressiondedup.testdata.verify.Verifier;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Three simulated days of event time at a steady rate, on a real cluster with one TaskManager JVM (so
 * that its file descriptors and heap are the job's alone, read from {@code /proc} and {@code jcmd}, and
 * its state is RocksDB as in production), with one of four input partitions falling idle after the
 * first six hours.
 *
 * <p>Time is fast-forwarded: the generator's clock advances one simulated hour every {@value
 * #RECORDS_PER_HOUR} records, written at a steady {@value #RATE} records per second. With the default
 * daily buckets, 2 days of retention and 1 day of allowed lateness, the first bucket would expire only
 * at the end of day 4 ({@code endOf(b) + R + L}), so three days would never reach the steady state;
 * the soak scales time down by 24 instead: buckets of 1 h, retention 2 h, allowed lateness 1 h and
 * idleness 3 s over 72 simulated hours, which gives 68 expiry cycles after the first 4 hours.
 *
 * <p>It checks that (1) the state is flat once retention + lateness is reached: the live shard-buckets the operator
 * logs at each checkpoint of the last day stay at a few buckets' worth (72 buckets' worth without expiry; that an
 * expired bucket's pages leave the state with it is pinned by {@code DedupOperatorTest}). RocksDB's full checkpoint
 * size is printed per hour, not compared: it is a sawtooth of flushes and compactions (0.36 to 1.1 MB here) whose
 * smallest, median and largest per day depend on where the checkpoints fall in its cycles, i.e. on timing (a CI run
 * had the smallest of two days 1.52 apart with the live buckets equal); (2) the watermark moves on
 * although a partition is idle: the dedup operator's input watermark, read while the stream is
 * written, reaches hour 48 (an idle partition that held it would keep it at hour 6); (3) the
 * TaskManager leaks neither file descriptors nor heap: the floor of its descriptors other than RocksDB's
 * files in the last third of the run at most 8 above their floor in the middle third (they hold still:
 * jars, sockets, event polls, 174 in every sample of a quiet run; a leak raises the floor, a descriptor
 * leaked per checkpoint by some 25 a third, while the files a checkpoint's upload holds open for a moment
 * only raise a sample, and the first third has the job's start in it). RocksDB's own files in its {@code
 * db} directories are counted apart and printed, not compared: they follow its flushes and compactions (6
 * to 77 in one run, 252 to 278 descriptors in all at the peaks of a CI run that loaded the machine), so
 * their peaks depend on timing, and their bound is RocksDB's compaction. The live heap is compared with the
 * first third's;
 * and the floor of its live heap, measured after a full GC ({@link #liveHeapKiB}), at most 25% + 16 MiB
 * higher (sampled heap use swings between collections whatever leaks, so it is printed, not
 * compared); (4) the output is exactly once.
 *
 * <p>Under backpressure an idle partition holds the watermark longer than the idleness: Flink measures
 * idleness on the source's input activity clock, which stands still while the source cannot emit. On a
 * loaded machine the first simulated day then shows state growing until the partition is declared idle,
 * and shrinking back once it is; the checks look at the days after.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(SecondLane.LANE)
class SoakIT {

    static final int HOURS = 72;
    static final int RECORDS_PER_HOUR = 1_500;
    static final int RECORDS = HOURS * RECORDS_PER_HOUR;
    /** Records per second: 72 simulated hours in 75 seconds. */
    static final int RATE = 1_440;
    static final int PARTITIONS = 4;
    /** Simulated hours after which the last partition gets no more records. */
    static final int IDLE_AFTER_HOURS = 6;

    private static final Pattern LIVE_SHARD_BUCKETS = Pattern.compile("Checkpoint (\\d+), dedup subtask \\d+: .*; (\\d+) live shard-buckets");
    private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");

    @Test
    void threeSimulatedDaysKeepStateFlatWatermarksMovingAndTheTaskManagerFromLeaking() throws Exception {
        long started = System.nanoTime();
        try (StandaloneCluster cluster = StandaloneCluster.start("soak-it", 1)) {
            String bootstrap = cluster.bootstrapServers();
            KafkaTopics.create(bootstrap, Map.of("soak-impressions", PARTITIONS, "soak-deduplicated", 2, "soak-dead-letters", 1), Map.of());
            Instant start = Instant.now().minus(Duration.ofHours(HOURS + 1)).truncatedTo(java.time.temporal.ChronoUnit.HOURS);
            GeneratorSettings settings = GeneratorSettings.builder().count(RECORDS).seed(72).start(start).span(Duration.ofHours(HOURS))
                    .bucketSize(Duration.ofHours(1)).retention(Duration.ofHours(2)).allowedLateness(Duration.ofHours(1)).build();
            String job = cluster.submit(2, List.of("--bootstrap-servers", bootstrap, "--input-topic", "soak-impressions",
                    "--output-topic", "soak-deduplicated", "--dlq-topic", "soak-dead-letters", "--capacity", "100000",
                    "--bucket-size", "1h", "--retention", "2h", "--allowed-lateness", "1h", "--idleness", "3s",
                    "--checkpoint-interval", "1s", "--starting-offsets", "earliest", "--group-id", "soak",
                    "--transactional-id-prefix", "soak-it"));
            long taskManager = cluster.pid("taskmanager-0");
            String dedupVertex = vertex(cluster, job, "Deduplicate");

            Path truthFile = cluster.runDir().resolve("soak-truth.csv");
            SteadyStream stream = new SteadyStream(new ImpressionGenerator(settings), bootstrap, truthFile);
            CompletableFuture<Void> writing = CompletableFuture.runAsync(stream::run);
            List<Sample> samples = new ArrayList<>();
            Map<Long, JsonNode> checkpoints = new TreeMap<>();
            long lastHeapCheck = 0;
            while (!writing.isDone()) {
                Sample sample = new Sample(stream.hour(), openFiles(taskManager), restHeapUsed(cluster), watermarkHour(cluster, job, dedupVertex, start));
                if (System.nanoTime() - lastHeapCheck > TimeUnit.SECONDS.toNanos(10)) {
                    sample.liveHeapKiB = liveHeapKiB(taskManager);
                    lastHeapCheck = System.nanoTime();
                }
                samples.add(sample);
                collectCompleted(cluster, job, checkpoints);
                Thread.sleep(1_000);
            }
            writing.get();
            Sample end = new Sample(stream.hour(), openFiles(taskManager), restHeapUsed(cluster), watermarkHour(cluster, job, dedupVertex, start));
            end.liveHeapKiB = liveHeapKiB(taskManager);
            samples.add(end);
            CheckpointedCatchUp.await(cluster, job, "soak", "soak-impressions", List.of("soak-deduplicated", "soak-dead-letters"),
                    Duration.ofSeconds(120));
            collectCompleted(cluster, job, checkpoints);
            Map<Long, Integer> liveShardBuckets = liveShardBuckets(cluster.runDir().resolve("logs/taskmanager-0.log"));
            long[] idlePartitionRecords = stream.recordsByPartition();

            VerificationReport report = Verifier.verifyTopics(GroundTruth.read(truthFile), bootstrap, "soak-deduplicated", "soak-dead-letters");
            String curve = curve(checkpoints, liveShardBuckets, samples, stream);
            System.out.println(curve);
            System.out.println(report.toText(0.001));
            double watermarkWhileStreaming = samples.stream().mapToDouble(s -> s.watermarkHour).max().orElse(-1);
            System.out.printf(Locale.ROOT, "soak took %.0f s; records by partition %s; dedup watermark while streaming up to simulated hour"
                    + " %.1f%n", (System.nanoTime() - started) / 1e9, java.util.Arrays.toString(idlePartitionRecords), watermarkWhileStreaming);

            // (1) State flat once retention + lateness is reached.
            int lastDayShardBuckets = checkpoints.values().stream()
                    .filter(c -> stream.hourAt(c.path("trigger_timestamp").asLong()) >= HOURS - 24)
                    .mapToInt(c -> liveShardBuckets.getOrDefault(c.path("id").asLong(), 0)).max().orElse(0);
            assertThat(lastDayShardBuckets).as("live shard-buckets in the last simulated day: at most 12 per shard (4 to 5 expected:"
                    + " R + L = 3 h of 1 h buckets, the current one and the one expiring, one more for each simulated hour, about a"
                    + " second here, that a source subtask runs ahead of the watermark), 48 to 72 were none dropped\n%s", curve)
                    .isBetween(1, 128 * 12);

            // (2) The watermark went on past the partition idle since hour 6, while the other partitions were written (once
            // every partition is idle, Flink forwards the highest watermark anyway, so a watermark read after the stream proves
            // nothing).
            assertThat(idlePartitionRecords[PARTITIONS - 1]).as("records written to the idle partition")
                    .isEqualTo(stream.recordsByPartitionAt(IDLE_AFTER_HOURS)[PARTITIONS - 1]);
            assertThat(watermarkWhileStreaming).as("dedup watermark (simulated hour) while streaming\n%s", curve)
                    .isGreaterThanOrEqualTo(HOURS - 24);

            // (3) No leak: the last third of the run against the first.
            List<Sample> first = samples.subList(0, samples.size() / 3);
            List<Sample> last = samples.subList(samples.size() - samples.size() / 3, samples.size());
            List<Sample> middle = samples.subList(samples.size() / 3, samples.size() - samples.size() / 3);
            long middleFiles = middle.stream().mapToLong(s -> s.openFiles.other()).min().orElseThrow();
            long lastFiles = last.stream().mapToLong(s -> s.openFiles.other()).min().orElseThrow();
            assertThat(lastFiles).as("descriptors of the TaskManager other than RocksDB's files, least in the last third vs the middle"
                    + " third (%d)\n%s", middleFiles, curve).isLessThanOrEqualTo(middleFiles + 8);
            // The floor of the live heap: a leak raises it, a transient (more buckets while the watermark waited) does not.
            long firstHeap = first.stream().mapToLong(s -> s.liveHeapKiB).filter(kib -> kib > 0).min()
                    .orElseThrow(() -> new AssertionError("no heap measured after a full GC in the first third"));
            long lastHeap = last.stream().mapToLong(s -> s.liveHeapKiB).filter(kib -> kib > 0).min()
                    .orElseThrow(() -> new AssertionError("no heap measured after a full GC in the last third"));
            assertThat(lastHeap).as("TaskManager heap after a full GC (KiB), least in the last third vs the first (%,d)\n%s", firstHeap, curve)
                    .isLessThanOrEqualTo(firstHeap * 5 / 4 + 16 * 1024);

            // (4) Exactly once all along.
            String text = report.toText(0.001);
            assertThat(report.input()).isEqualTo(RECORDS);
            assertThat(report.exactlyOnceViolations()).as(text).isEmpty();
            assertThat(report.falsePositives()).as(text).isZero();
        }
    }

    /** One look at the TaskManager and the job, once a second. */
    private static final class Sample {
        final double hour;
        final OpenFiles openFiles;
        final long heapUsed;
        final double watermarkHour;
        /** Heap in use right after a full GC (the live set), on some samples only; 0 where not measured. */
        long liveHeapKiB;

        Sample(double hour, OpenFiles openFiles, long heapUsed, double watermarkHour) {
            this.hour = hour;
            this.openFiles = openFiles;
            this.heapUsed = heapUsed;
            this.watermarkHour = watermarkHour;
        }
    }

    /**
     * The stream at a steady rate; the first {@value #IDLE_AFTER_HOURS} simulated hours over all
     * partitions (by a hash of the key, as Kafka's partitioner), then the last partition gets nothing
     * more. Remembers which simulated hour it was writing at each wall-clock instant.
     */
    private static final class SteadyStream {
        private final ImpressionGenerator generator;
        private final String bootstrap;
        private final Path truthFile;
        /** Wall-clock millis -> records written by then. */
        private final NavigableMap<Long, Long> timeline = new ConcurrentSkipListMap<>();
        private final long[] byPartition = new long[PARTITIONS];
        private final NavigableMap<Integer, long[]> byPartitionAtHour = new ConcurrentSkipListMap<>();
        private volatile long written;

        SteadyStream(ImpressionGenerator generator, String bootstrap, Path truthFile) {
            this.generator = generator;
            this.bootstrap = bootstrap;
            this.truthFile = truthFile;
        }

        void run() {
            try (KafkaTopicDestination input = new KafkaTopicDestination(bootstrap, "soak-impressions", Map.of());
                    GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
                long begin = System.nanoTime();
                timeline.put(System.currentTimeMillis(), 0L);
                while (generator.hasNext()) {
                    GeneratedRecord record = generator.next();
                    int hour = (int) (record.seq / RECORDS_PER_HOUR);
                    int partitions = hour < IDLE_AFTER_HOURS ? PARTITIONS : PARTITIONS - 1;
                    int partition = record.key == null ? (int) (record.seq % partitions) : Utils.toPositive(Utils.murmur2(record.key)) % partitions;
                    input.write(record, partition);
                    truth.write(record);
                    byPartition[partition]++;
                    written = record.seq + 1;
                    if (written % RECORDS_PER_HOUR == 0) {
                        byPartitionAtHour.put((int) (written / RECORDS_PER_HOUR), byPartition.clone());
                    }
                    if (written % 200 == 0) {
                        input.flush();
                        timeline.put(System.currentTimeMillis(), written);
                        long wait = begin + written * 1_000_000_000L / RATE - System.nanoTime();
                        if (wait > 0) {
                            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                        }
                    }
                }
                input.flush();
                timeline.put(System.currentTimeMillis(), written);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("Writing the soak stream failed", e);
            }
        }

        double hour() {
            return (double) written / RECORDS_PER_HOUR;
        }

        /** The simulated hour being written at a wall-clock instant. */
        double hourAt(long epochMillis) {
            Map.Entry<Long, Long> entry = timeline.floorEntry(epochMillis);
            return entry == null ? 0 : (double) entry.getValue() / RECORDS_PER_HOUR;
        }

        long[] recordsByPartition() {
            return byPartition.clone();
        }

        long[] recordsByPartitionAt(int hour) {
            return byPartitionAtHour.get(hour);
        }
    }

    /** Completed checkpoints of the REST statistics (the last ten), by id. */
    private static void collectCompleted(StandaloneCluster cluster, String job, Map<Long, JsonNode> checkpoints) {
        for (JsonNode checkpoint : cluster.restJson("/jobs/" + job + "/checkpoints").path("history")) {
            if (checkpoint.path("status").asText().equals("COMPLETED")) {
                checkpoints.put(checkpoint.path("id").asLong(), checkpoint);
            }
        }
    }

    /** Per checkpoint, the live shard-buckets the dedup subtasks logged when it completed, summed over subtasks. */
    private static Map<Long, Integer> liveShardBuckets(Path taskManagerLog) throws IOException {
        Map<Long, Integer> sums = new TreeMap<>();
        for (String line : Files.readAllLines(taskManagerLog, StandardCharsets.ISO_8859_1)) {
            Matcher m = LIVE_SHARD_BUCKETS.matcher(line);
            if (m.find()) {
                sums.merge(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)), Integer::sum);
            }
        }
        return sums;
    }

    /** Per simulated hour: checkpoints, largest full and incremental size, live shard-buckets, open descriptors (RocksDB's files apart), heap. */
    private static String curve(Map<Long, JsonNode> checkpoints, Map<Long, Integer> liveShardBuckets, List<Sample> samples,
            SteadyStream stream) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%4s %5s %12s %12s %13s %11s %11s %11s %13s %9s%n", "hour", "ckpts", "full size B", "incr. max B", "shard-buckets",
                "other fds", "RocksDB fds", "heap MiB", "live heap MiB", "watermark"));
        for (int hour = 0; hour < HOURS; hour++) {
            int count = 0;
            long full = 0;
            long incremental = 0;
            int buckets = 0;
            for (JsonNode checkpoint : checkpoints.values()) {
                if ((int) stream.hourAt(checkpoint.path("trigger_timestamp").asLong()) == hour) {
                    count++;
                    full = Math.max(full, checkpoint.path("state_size").asLong());
                    incremental = Math.max(incremental, checkpoint.path("checkpointed_size").asLong());
                    buckets = Math.max(buckets, liveShardBuckets.getOrDefault(checkpoint.path("id").asLong(), 0));
                }
            }
            final int h = hour;
            List<Sample> inHour = samples.stream().filter(s -> (int) s.hour == h).toList();
            long files = inHour.stream().mapToLong(s -> s.openFiles.other()).max().orElse(0);
            long rocksDbFiles = inHour.stream().mapToLong(s -> s.openFiles.rocksDb()).max().orElse(0);
            long heap = inHour.stream().mapToLong(s -> s.heapUsed).max().orElse(0);
            long live = inHour.stream().mapToLong(s -> s.liveHeapKiB).max().orElse(0);
            double watermark = inHour.stream().mapToDouble(s -> s.watermarkHour).max().orElse(Double.NaN);
            sb.append(String.format(Locale.ROOT, "%4d %5d %,12d %,12d %13d %11d %11d %11s %13s %9s%n", hour, count, full, incremental,
                    buckets, files, rocksDbFiles, heap == 0 ? "-" : Long.toString(heap >> 20), live == 0 ? "-" : Long.toString(live >> 10),
                    Double.isNaN(watermark) || watermark < 0 ? "-" : String.format(Locale.ROOT, "%.1f", watermark)));
        }
        return sb.toString();
    }

    private static String vertex(StandaloneCluster cluster, String job, String namePrefix) {
        for (JsonNode vertex : cluster.restJson("/jobs/" + job).path("vertices")) {
            if (vertex.path("name").asText().startsWith(namePrefix)) {
                return vertex.path("id").asText();
            }
        }
        throw new AssertionError("No vertex named " + namePrefix + "... in job " + job);
    }

    /**
     * The dedup operator's input watermark (lowest over its subtasks) as a simulated hour of the
     * stream; -1 before the first. From the REST metrics, which lag up to {@link StandaloneCluster#METRICS_FETCH_INTERVAL}.
     */
    private static double watermarkHour(StandaloneCluster cluster, String job, String vertex, Instant start) {
        long lowest = Long.MAX_VALUE;
        for (JsonNode metric : cluster.restJson("/jobs/" + job + "/vertices/" + vertex + "/watermarks")) {
            lowest = Math.min(lowest, metric.path("value").asLong(Long.MIN_VALUE));
        }
        if (lowest == Long.MAX_VALUE || lowest == Long.MIN_VALUE) {
            return -1;
        }
        return (lowest - start.toEpochMilli()) / 3_600_000.0;
    }

    /** Status.JVM.Memory.Heap.Used of the TaskManager from the REST API (sampled, so a sawtooth between GCs). */
    private static long restHeapUsed(StandaloneCluster cluster) {
        JsonNode metrics = cluster.restJson("/taskmanagers/taskmanager-0/metrics?get=Status.JVM.Memory.Heap.Used");
        return metrics.size() == 0 ? 0 : metrics.get(0).path("value").asLong();
    }

    /** A process's open file descriptors: those on files in a RocksDB {@code db} directory, and all others. */
    record OpenFiles(long rocksDb, long other) {
    }

    /**
     * The open file descriptors of a process, by what they point to ({@code /proc/PID/fd}). A descriptor
     * closed while listed is skipped.
     */
    private static OpenFiles openFiles(long pid) throws IOException {
        long rocksDb = 0;
        long other = 0;
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                Path target;
                try {
                    target = Files.readSymbolicLink(fd);
                } catch (NoSuchFileException closed) {
                    continue;
                }
                if (isRocksDbFile(target)) {
                    rocksDb++;
                } else {
                    other++;
                }
            }
        }
        return new OpenFiles(rocksDb, other);
    }

    /** A file in the {@code db} directory Flink gives each RocksDB instance (its SST files, manifest, lock, log). */
    static boolean isRocksDbFile(Path target) {
        Path parent = target.getParent();
        return parent != null && parent.getFileName() != null && parent.getFileName().toString().equals("db")
                && parent.getParent() != null && parent.getParent().getFileName().toString().startsWith("job_");
    }

    /**
     * The live heap of a JVM: its heap in use right after a full GC ({@code jcmd GC.run}, then {@code
     * GC.heap_info}). Unlike sampled heap use, which swings between collections up to the heap's size
     * whatever is leaking, this grows only if reachable objects accumulate.
     */
    private static long liveHeapKiB(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        Matcher used = HEAP_USED.matcher(jcmd(pid, "GC.heap_info"));
        if (!used.find()) {
            throw new IllegalStateException("No heap use in jcmd GC.heap_info of " + pid);
        }
        return Long.parseLong(used.group(1));
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process process = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(jcmd + " " + pid + " " + command + " failed: " + out);
        }
        return out;
    }
}
