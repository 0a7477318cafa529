package io.impressiondedup.bench.parse;

import io.impressiondedup.job.io.ImpressionParser;
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
 * benchmarks send; and the same impressions in Avro ({@link ParseVariants}: this project's reader, and Avro's own
 * reader with a projection, each followed by the digest). The clock is fixed past every event time, so no record
 * is refused as future.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xmx1g"})
public class ParseBenchmark {

    private ParseVariants variants;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        variants = new ParseVariants();
    }

    private int nextIndex() {
        int index = next;
        next = (next + 1) & (ParseVariants.RECORDS - 1);
        return index;
    }

    @Benchmark
    public int parse() {
        return variants.run("json", nextIndex());
    }

    @Benchmark
    public int avro() {
        return variants.avro(nextIndex());
    }

    @Benchmark
    public int avroLibrary() {
        return variants.avroLibrary(nextIndex());
    }
}
