package io.impressiondedup.local;

import io.impressiondedup.testdata.Generation;
import io.impressiondedup.testdata.GroundTruthWriter;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.KafkaTopicDestination;
import io.impressiondedup.testdata.RecordClass;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The run's input: generated impressions written to the input topic, and beside them the ground truth
 * ({@code truth.csv} in the work dir) that the output is verified against.
 *
 * @param truthFile the ground truth, one row per generated record
 * @param classes how many records of each class were generated
 * @param seconds how long generating and sending took
 */
record GeneratedInput(Path truthFile, Map<RecordClass, Long> classes, double seconds) {

    static GeneratedInput generate(LocalRunSettings settings, String bootstrapServers, String topic, RunConsole console)
            throws IOException {
        Path truthFile = settings.workDir().resolve("truth.csv");
        console.step("Generating %,d impressions into topic %s (ground truth: %s)", settings.count(), topic, truthFile);
        Stopwatch stopwatch = Stopwatch.start();
        Map<RecordClass, Long> classes;
        try (KafkaTopicDestination destination = new KafkaTopicDestination(bootstrapServers, topic, Map.of());
                GroundTruthWriter truth = new GroundTruthWriter(truthFile)) {
            classes = Generation.run(new ImpressionGenerator(settings.generator()), settings.count(), destination, truth, 0,
                    console.stream());
        }
        return new GeneratedInput(truthFile, classes, stopwatch.seconds());
    }
}
