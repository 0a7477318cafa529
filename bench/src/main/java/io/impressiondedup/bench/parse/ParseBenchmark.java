package io.impressiondedup.bench.parse;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.ImpressionParser;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.ImpressionGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The source's per-record work: {@link ImpressionParser#parse} (Jackson streaming parse of the value,
 * identity checks, MD5 of the request id) on the generator's records, which are what the end-to-end
 * benchmarks send. The clock is fixed past every event time, so no record is refused as future.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xmx1g"})
public class ParseBenchmark {

    private static final int RECORDS = 1 << 14;

    private ImpressionParser parser;
    private RawKafkaRecord[] records;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        parser = new ImpressionParser(new ParserSettings("requestId", "adId", "ts", 1 << 20, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> Long.MAX_VALUE / 2);
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(3).build());
        List<RawKafkaRecord> raw = new ArrayList<>();
        while (generator.hasNext()) {
            GeneratedRecord record = generator.next();
            raw.add(RawKafkaRecord.ofValue("impressions", 0, raw.size(), record.value));
        }
        records = raw.toArray(new RawKafkaRecord[0]);
    }

    @Benchmark
    public ParsedRecord parse() {
        RawKafkaRecord record = records[next];
        next = (next + 1) & (RECORDS - 1);
        return parser.parse(record);
    }
}
