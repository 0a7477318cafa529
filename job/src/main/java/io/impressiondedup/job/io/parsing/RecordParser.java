package io.impressiondedup.job.io.parsing;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * Turns one Kafka record of the input into an impression or a dead letter saying why not; never throws for bad input.
 * One implementation per input format ({@code --input-format}), chosen by {@link #of} alone, so the job's source
 * ({@link ImpressionDeserializationSchema}), the {@code bootstrap --from-topic} tool and the benchmarks read a record
 * the same way. Every implementation ends in {@link ImpressionAssembler}, which applies the format-independent rules.
 * One instance per reader; not thread-safe.
 */
public interface RecordParser {

    ParsedRecord parse(RawKafkaRecord raw);

    /** The parser of {@code settings}' input format, with {@code clock} as processing time (for the far-future check). */
    static RecordParser of(ParserSettings settings, LongSupplier clock) {
        return of(settings, clock, new UnregisteredMetricsGroup());
    }

    /** As {@link #of(ParserSettings, LongSupplier)}, with the parser's own metrics (a schema registry's) in {@code metrics}. */
    static RecordParser of(ParserSettings settings, LongSupplier clock, MetricGroup metrics) {
        switch (settings.inputFormat()) {
            case AVRO:
                return new AvroImpressionParser(settings, clock, metrics);
            case JSON:
                return new JsonImpressionParser(settings, clock);
            default:
                throw new IllegalArgumentException("no parser for input format " + settings.inputFormat());
        }
    }

    /** The parser of {@code settings}' input format, on the system clock. */
    static RecordParser of(ParserSettings settings) {
        return of(settings, System::currentTimeMillis);
    }
}
