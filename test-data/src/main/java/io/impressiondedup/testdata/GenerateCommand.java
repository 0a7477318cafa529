package io.impressiondedup.testdata;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.generate.ValueFormat;
import io.impressiondedup.testdata.write.Generation;
import io.impressiondedup.testdata.write.GroundTruthWriter;
import io.impressiondedup.testdata.write.JsonlFileDestination;
import io.impressiondedup.testdata.write.KafkaTopicDestination;
import io.impressiondedup.testdata.write.RecordDestination;

/** {@code test-data generate}: the options as {@link GeneratorSettings}, the records to a JSONL file or a Kafka topic. */
@Command(name = "generate", defaultValueProvider = JobTimeDefaults.class, footerHeading = "%nPassed through:%n",
        description = "Generates impressions with duplicates, late, malformed and far-future records, to a JSONL file or a"
                + " Kafka topic, and their ground truth.",
        footer = "  --kafka.<property> <value>   Passed to the Kafka producer, e.g. --kafka.security.protocol SASL_SSL")
final class GenerateCommand extends TestDataSubcommand {

    @Option(names = "--count", defaultValue = "1000000", description = "Records to generate.")
    long count;

    @Option(names = "--seed", defaultValue = "1",
            description = "Random seed: the same seed and options give the same records, byte for byte.")
    long seed;

    @Option(names = "--duplicate-share", defaultValue = "0.2",
            description = "Share of records that are copies of an earlier impression.")
    double duplicateShare;

    @Option(names = "--beyond-retention-share", defaultValue = "0.02",
            description = "Share of copies stamped beyond retention + one bucket (to pass as new).")
    double beyondRetentionShare;

    @Option(names = "--late-share", defaultValue = "0.002",
            description = "Share of late records (stamped 2 x retention + allowed lateness + 1 bucket + 6h behind the"
                    + " stream, or up to one bucket more).")
    double lateShare;

    @Option(names = "--malformed-share", defaultValue = "0.003",
            description = "Share of malformed records (invalid JSON, missing fields, garbage, oversized, ...).")
    double malformedShare;

    @Option(names = "--future-share", defaultValue = "0.001", description = "Share of records dated in the far future.")
    double futureShare;

    @Option(names = "--max-ads-per-request", defaultValue = "3",
            description = "Most ads one request shows (each a separate impression).")
    int maxAdsPerRequest;

    @Option(names = "--span", defaultValue = "4d", description = "Event time the stream covers.")
    Duration span;

    @Option(names = "--start",
            description = "Event time of the first record, ISO-8601 such as 2026-11-18T00:00:00Z (default: now minus the"
                    + " span, so the stream ends now).")
    Instant start;

    @Option(names = "--max-jitter", defaultValue = "30s",
            description = "Out-of-order jitter: records are stamped up to this far behind the stream clock.")
    Duration maxJitter;

    @Option(names = "--retention",
            description = "The job's retention (classes late and beyond-retention copies accordingly).")
    Duration retention;

    @Option(names = "--bucket-size",
            description = "The job's bucket size: at least 1min, dividing a day or whole days.")
    Duration bucketSize;

    @Option(names = "--allowed-lateness",
            description = "The job's allowed lateness (late records are stamped beyond it; delays stay inside it).")
    Duration allowedLateness;

    @Option(names = "--delayed-share", defaultValue = "0",
            description = "Share of requests from delayed clients (mobile, offline): their impressions keep their event time"
                    + " but are written --delay-min to --delay-max later into the stream; some copies are re-sent with the"
                    + " original timestamp.")
    double delayedShare;

    @Option(names = "--delay-min", defaultValue = "1h",
            description = "Shortest delay of a delayed client's impressions (uniform up to --delay-max).")
    Duration delayMin;

    @Option(names = "--delay-max", defaultValue = "20h",
            description = "Longest delay of a delayed client's impressions; at most --allowed-lateness minus 1h.")
    Duration delayMax;

    @Option(names = "--format", defaultValue = "json",
            description = "How values are written: json, or avro (binary, by the schema impression.avsc of this jar:"
                    + " test-data/src/main/resources/impression.avsc). The same seed gives the same records and ground truth in both.")
    String format;

    @Option(names = "--avro-wire-prefix", defaultValue = "none",
            description = "With --format avro: none, or confluent (each value begins with magic byte 0 and --avro-schema-id,"
                    + " the schema registry's wire format).")
    String avroWirePrefix;

    @Option(names = "--avro-schema-id", defaultValue = "1", description = "The schema id of --avro-wire-prefix confluent.")
    int avroSchemaId;

    @Option(names = "--output", description = "JSONL file to write records to (one envelope per line); or give --topic.")
    Path output;

    @Option(names = "--topic", description = "Kafka topic to produce records to (key = request id, header testdata.seq).")
    String topic;

    @Option(names = "--bootstrap-servers", description = "Kafka bootstrap servers (with --topic).")
    String bootstrapServers;

    @Option(names = "--truth", required = true, description = "Ground-truth CSV to write (required).")
    Path truth;

    @Option(names = "--rate", defaultValue = "0", description = "Records per second to produce at; 0 for as fast as possible.")
    double rate;

    @Override
    public Integer call() throws IOException {
        Map<String, String> kafkaProperties = kafkaProperties();
        GeneratorSettings settings = settings();
        if (rate < 0) {
            throw new ParameterException(spec.commandLine(), "--rate must not be negative, but was " + rate);
        }
        if ((output == null) == (topic == null)) {
            throw new ParameterException(spec.commandLine(),
                    "Give exactly one of --output (a JSONL file) and --topic (with --bootstrap-servers)");
        }
        try (RecordDestination destination = output != null
                        ? new JsonlFileDestination(output)
                        : new KafkaTopicDestination(required(bootstrapServers, "--bootstrap-servers"), topic, kafkaProperties);
                GroundTruthWriter truthWriter = new GroundTruthWriter(truth)) {
            Map<RecordClass, Long> counts =
                    Generation.run(new ImpressionGenerator(settings), settings.count(), destination, truthWriter, rate, parent.err());
            parent.out().println("records by class: " + counts);
            parent.out().println("ground truth: " + truth);
        }
        return 0;
    }

    /** The options as generator settings; {@link GeneratorSettings.Builder#build()} validates them, naming the option. */
    GeneratorSettings settings() {
        GeneratorSettings.Builder builder = GeneratorSettings.builder()
                .count(count)
                .seed(seed)
                .duplicateShare(duplicateShare)
                .beyondRetentionShare(beyondRetentionShare)
                .lateShare(lateShare)
                .malformedShare(malformedShare)
                .futureShare(futureShare)
                .maxAdsPerRequest(maxAdsPerRequest)
                .span(span)
                .start(start)
                .maxJitter(maxJitter)
                .retention(retention)
                .bucketSize(bucketSize)
                .allowedLateness(allowedLateness)
                .delayedShare(delayedShare)
                .delayMin(delayMin)
                .delayMax(delayMax);
        try {
            builder.format(switch (format) {
                case "json" -> ValueFormat.JSON;
                case "avro" -> ValueFormat.AVRO;
                default -> throw new IllegalArgumentException("--format must be json or avro, but was " + format);
            });
            builder.avroSchemaId(switch (avroWirePrefix) {
                case "none" -> null;
                case "confluent" -> avroSchemaId;
                default -> throw new IllegalArgumentException("--avro-wire-prefix must be none or confluent, but was " + avroWirePrefix);
            });
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
