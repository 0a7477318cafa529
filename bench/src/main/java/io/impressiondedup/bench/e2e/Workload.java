package io.impressiondedup.bench.e2e;

import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.verify.GroundTruth;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.state.time.TimeBuckets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * A generated input topic and its ground truth, shared by every run over it. The stream spans the
 * retention (2 days), so that no variant expires anything during a run and state sizes compare
 * like for like: every unique impression is still remembered at the end, by all of them.
 */
final class Workload {

    static final Duration SPAN = TimeBuckets.DEFAULT_RETENTION;
    static final int INPUT_PARTITIONS = 4;

    final String inputTopic;
    final long records;
    final Map<RecordClass, Long> byClass;
    final GroundTruth truth;
    final double generationSeconds;

    private Workload(String inputTopic, long records, Map<RecordClass, Long> byClass, GroundTruth truth, double generationSeconds) {
        this.inputTopic = inputTopic;
        this.records = records;
        this.byClass = byClass;
        this.truth = truth;
        this.generationSeconds = generationSeconds;
    }

    long uniqueImpressions() {
        return byClass.entrySet().stream().filter(e -> e.getKey().opensGroup()).mapToLong(java.util.Map.Entry::getValue).sum();
    }

    /** Unique impressions per day bucket: what a user would plan the job's --capacity with. */
    long uniquePerDay() {
        return (long) Math.ceil((double) uniqueImpressions() / SPAN.toDays());
    }

    static Workload generate(BenchKafka kafka, long records, long seed, Path workDir) throws Exception {
        return generate(kafka, records, seed, workDir, ValueFormat.JSON);
    }

    /**
     * {@code records} impressions of {@code seed} in {@code format}: the same records, classes and ground truth in
     * either format (only the values' bytes differ), each format in a topic of its own.
     */
    static Workload generate(BenchKafka kafka, long records, long seed, Path workDir, ValueFormat format) throws Exception {
        String name = format == ValueFormat.JSON ? "" : "-" + format.name().toLowerCase(java.util.Locale.ROOT);
        String topic = "impressions" + name + "-" + records + "-" + Long.toString(System.currentTimeMillis(), 36);
        kafka.create(Map.of(topic, INPUT_PARTITIONS));
        Path truthFile = workDir.resolve("truth" + name + "-" + records + ".csv");
        Map<RecordClass, Long> byClass = new EnumMap<>(RecordClass.class);
        ImpressionGenerator generator = new ImpressionGenerator(
                GeneratorSettings.builder().count(records).seed(seed).span(SPAN).format(format).build());
        long start = System.nanoTime();
        try (GroundTruthWriter truth = new GroundTruthWriter(truthFile);
                KafkaTopicDestination input = new KafkaTopicDestination(kafka.bootstrapServers, topic, Map.of())) {
            while (generator.hasNext()) {
                GeneratedRecord record = generator.next();
                input.write(record);
                truth.write(record);
                byClass.merge(record.recordClass, 1L, Long::sum);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "generated %,d records into %s in %.0f s (%,.0f records/s): %s%n", records, topic, seconds,
                records / seconds, byClass);
        return new Workload(topic, records, byClass, GroundTruth.read(truthFile), seconds);
    }
}
