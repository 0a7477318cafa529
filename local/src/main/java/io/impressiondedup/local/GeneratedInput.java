package io.impressiondedup.local;

import io.impressiondedup.testdata.write.Generation;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.RecordClass;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * The run's input: generated impressions written to the input topic, and beside them the ground truth
 * ({@code truth.csv} in the work dir) that the output is verified against.
 *
 * <p><b>Why the second half is held back.</b> The ground truth calls a record late when it is late
 * against any watermark the stream's first impressions make, and the generator writes late records
 * only in the second half of the stream ({@link ImpressionGenerator}). The job judges lateness by its
 * watermark, which exists only once every source reader has emitted one: read at full speed from a
 * full topic, a share of the stream that depends on the machine would pass before it, late records
 * among it would rightly pass as new, and the verdict would depend on timing. So the first half is
 * committed at once and the second half written in a Kafka transaction left open: the job's
 * read_committed readers stop before it, and {@link #release} commits it once every dedup subtask has a
 * watermark. The bounded job's end offsets lie past the open transaction, so it still reads everything.
 */
final class GeneratedInput implements AutoCloseable {

    /** Long enough for any local run's job to start and emit its first watermark. */
    private static final String TRANSACTION_TIMEOUT_MS = "900000";

    private final Path truthFile;
    private final Map<RecordClass, Long> classes;
    private final double seconds;
    private final KafkaTopicDestination heldSecondHalf;

    private GeneratedInput(Path truthFile, Map<RecordClass, Long> classes, double seconds,
            KafkaTopicDestination heldSecondHalf) {
        this.truthFile = truthFile;
        this.classes = classes;
        this.seconds = seconds;
        this.heldSecondHalf = heldSecondHalf;
    }

    static GeneratedInput generate(LocalRunSettings settings, String bootstrapServers, String topic, RunConsole console)
            throws IOException {
        Path truthFile = settings.workDir().resolve("truth.csv");
        console.step("Generating %,d impressions into topic %s (ground truth: %s); the second half stays in an open"
                + " transaction until the job has a watermark", settings.count(), topic, truthFile);
        Stopwatch stopwatch = Stopwatch.start();
        KafkaTopicDestination destination = new KafkaTopicDestination(bootstrapServers, topic, Map.of(
                "transactional.id", "local-run-input", "transaction.timeout.ms", TRANSACTION_TIMEOUT_MS));
        Map<RecordClass, Long> classes = new EnumMap<>(RecordClass.class);
        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
            ImpressionGenerator generator = new ImpressionGenerator(settings.generator());
            long firstHalf = settings.count() / 2;
            destination.beginTransaction();
            add(classes, Generation.run(generator, firstHalf, destination, truth, 0, console.stream()));
            destination.commitTransaction();
            destination.beginTransaction();
            add(classes, Generation.run(generator, settings.count() - firstHalf, destination, truth, 0, console.stream()));
            destination.flush();
        } catch (IOException | RuntimeException e) {
            destination.close();
            throw e;
        }
        return new GeneratedInput(truthFile, classes, stopwatch.seconds(), destination);
    }

    private static void add(Map<RecordClass, Long> total, Map<RecordClass, Long> part) {
        part.forEach((recordClass, count) -> total.merge(recordClass, count, Long::sum));
    }

    /** Commits the held second half: call once every dedup subtask has a watermark. */
    void release() throws IOException {
        heldSecondHalf.commitTransaction();
    }

    /** The ground truth, one row per generated record. */
    Path truthFile() {
        return truthFile;
    }

    /** How many records of each class were generated. */
    Map<RecordClass, Long> classes() {
        return classes;
    }

    /** How long generating and sending took. */
    double seconds() {
        return seconds;
    }

    @Override
    public void close() throws IOException {
        heldSecondHalf.close();
    }
}
