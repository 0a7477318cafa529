package io.impressiondedup.bench.parse;

import io.impressiondedup.job.io.parsing.RecordParser;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The source's per-record work: {@link RecordParser#parse} of each input format (JSON: the fast path or Jackson's
 * streaming parse of the value; Avro: the bounded decoder; then identity checks, MD5 of the request id) on the generator's records, which are what the end-to-end
 * benchmarks send, in each {@link InputShape} (flat, nested read by JSON Pointers, a three-field key, Avro with and without the prefix). The clock
 * is fixed past every event time, so no record is refused as future.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xmx1g"})
public class ParseBenchmark {

    private static final int RECORDS = 1 << 14;

    @Param({"FLAT", "NESTED", "FLAT_THREE_FIELD_KEY", "AVRO", "AVRO_CONFLUENT"})
    public InputShape shape;

    private RecordParser parser;
    private RawKafkaRecord[] records;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        parser = shape.parser();
        records = shape.records(RECORDS);
    }

    @Benchmark
    public ParsedRecord parse() {
        RawKafkaRecord record = records[next];
        next = (next + 1) & (RECORDS - 1);
        return parser.parse(record);
    }
}
