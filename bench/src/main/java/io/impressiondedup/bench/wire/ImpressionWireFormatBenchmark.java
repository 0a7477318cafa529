package io.impressiondedup.bench.wire;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ImpressionSerializer;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
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
 * The keyBy shuffle's cost per record: serializing and deserializing an {@link Impression} in wire
 * format v1 (Flink's char-at-a-time strings) and v2 (UTF-8 in one piece, topic decoded once).
 *
 * <p>The records are shaped like {@code ImpressionGenerator}'s (test-data is not in benchmarks.jar):
 * a UUID request id (36 chars, also the record key), an ad id {@code ad-<rank>}, the topic
 * {@code impressions}, a JSON value of about 330 bytes, the generator's {@code testdata.seq} header
 * and, on every other record, a W3C {@code traceparent} header. 1,024 distinct records in turn.
 * The v1 serializer is the one Flink restores from a v1 snapshot, as after an upgrade.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class ImpressionWireFormatBenchmark {

    private static final int RECORDS = 1 << 10;

    @Param({"1", "2"})
    public int formatVersion;

    private TypeSerializer<Impression> serializer;
    private Impression[] impressions;
    private byte[][] serialized;
    private final DataOutputSerializer out = new DataOutputSerializer(1024);
    private final DataInputDeserializer in = new DataInputDeserializer();
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        TypeSerializerSnapshot<Impression> snapshot = new ImpressionSerializer.Snapshot();
        snapshot.readSnapshot(formatVersion, new DataInputDeserializer(new byte[0]), getClass().getClassLoader());
        serializer = snapshot.restoreSerializer().duplicate();
        SplittableRandom random = new SplittableRandom(16);
        impressions = new Impression[RECORDS];
        serialized = new byte[RECORDS][];
        for (int i = 0; i < RECORDS; i++) {
            impressions[i] = typicalImpression(i, random);
            out.clear();
            serializer.serialize(impressions[i], out);
            serialized[i] = out.getCopyOfBuffer();
        }
    }

    private static Impression typicalImpression(int seq, SplittableRandom random) {
        String requestId = new UUID(random.nextLong() & 0xFFFF_FFFF_FFFF_0FFFL | 0x4000L,
                random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L).toString();
        String adId = "ad-" + random.nextInt(100_000);
        long eventTime = 1_763_900_000_000L + random.nextInt(86_400_000);
        String json = "{\"requestId\":\"" + requestId + "\",\"adId\":\"" + adId + "\",\"ts\":" + eventTime
                + ",\"campaignId\":\"cmp-" + random.nextInt(400) + "\",\"placementId\":\"plc-" + random.nextInt(2000)
                + "\",\"publisherId\":\"pub-" + random.nextInt(300) + "\",\"country\":\"US\",\"deviceType\":\"mobile\""
                + ",\"userAgent\":\"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15\""
                + ",\"price\":" + random.nextInt(20) + ".1234,\"currency\":\"USD\",\"bidId\":\"" + Long.toHexString(random.nextLong()) + "\"}";
        byte[] seqValue = Integer.toString(seq).getBytes(StandardCharsets.US_ASCII);
        String[] headerKeys = seq % 2 == 0 ? new String[] {"testdata.seq"} : new String[] {"testdata.seq", "traceparent"};
        byte[][] headerValues = seq % 2 == 0 ? new byte[][] {seqValue}
                : new byte[][] {seqValue, ("00-" + Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong())
                        + "-" + Long.toHexString(random.nextLong()) + "-01").getBytes(StandardCharsets.US_ASCII)};
        RawKafkaRecord raw = new RawKafkaRecord("impressions", seq % 8, 1_000_000L + seq, eventTime,
                requestId.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8), headerKeys, headerValues);
        return new Impression(requestId, adId, eventTime, random.nextLong(), random.nextLong(), raw);
    }

    /** What one record costs the shuffle: written by the source task, read by the dedup task. */
    @Benchmark
    public Impression serializeAndDeserialize() throws IOException {
        Impression impression = impressions[next];
        next = (next + 1) & (RECORDS - 1);
        out.clear();
        serializer.serialize(impression, out);
        in.setBuffer(out.getSharedBuffer(), 0, out.length());
        return serializer.deserialize(in);
    }

    /** The reading side alone, which runs on the dedup task's thread (the bottleneck). */
    @Benchmark
    public Impression deserialize() throws IOException {
        byte[] bytes = serialized[next];
        next = (next + 1) & (RECORDS - 1);
        in.setBuffer(bytes);
        return serializer.deserialize(in);
    }
}
