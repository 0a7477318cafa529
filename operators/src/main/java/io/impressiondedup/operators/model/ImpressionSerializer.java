package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link Impression} between operators (and of in-flight records in unaligned
 * checkpoints). Format: request id, ad id, event time, digest high and low, (v3) the keyed ad-id hash,
 * then the raw record ({@link RawKafkaRecordFormat} of the same version, v2 for v3).
 *
 * <ul>
 *   <li>v1: strings by Flink's {@code StringSerializer}, one char at a time.
 *   <li>v2: strings as UTF-8 in one piece ({@link StringWireFormat}), the topic decoded once per
 *       distinct name.
 *   <li>v3: v2 plus the {@code long} keyed ad-id hash after the digest.
 * </ul>
 *
 * A serializer restored from a v1 or v2 snapshot reads and writes that version; a v1 or v2 record reads
 * with a keyed ad-id hash of 0.
 *
 * <p>Not stateless in v2 and v3: it holds a scratch buffer and the last topic name it decoded
 * ({@link RawKafkaRecordFormat}), so it is not thread-safe and {@link #duplicate()} returns a new
 * instance, per Flink's contract.
 */
public final class ImpressionSerializer extends VersionedSerializer<Impression> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 3;
    /** The current format's serializer: a template, one thread at a time; {@link #duplicate()} it for another. */
    public static final ImpressionSerializer INSTANCE = new ImpressionSerializer(CURRENT_VERSION);

    private final RawKafkaRecordFormat rawFormat;

    ImpressionSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
        this.rawFormat = new RawKafkaRecordFormat(Math.min(formatVersion, RawKafkaRecordFormat.V2));
    }

    @Override
    public ImpressionSerializer duplicate() {
        return new ImpressionSerializer(formatVersion());
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public Impression createInstance() {
        return null;
    }

    @Override
    public Impression copy(Impression from) {
        return from; // immutable
    }

    @Override
    public void serialize(Impression impression, DataOutputView out) throws IOException {
        rawFormat.writeString(impression.requestId(), out);
        rawFormat.writeString(impression.adId(), out);
        out.writeLong(impression.eventTime());
        out.writeLong(impression.digestHigh());
        out.writeLong(impression.digestLow());
        if (formatVersion() >= 3) {
            out.writeLong(impression.keyedAdIdHash());
        }
        rawFormat.write(impression.raw(), out);
    }

    @Override
    public Impression deserialize(DataInputView in) throws IOException {
        String requestId = rawFormat.readString(in);
        String adId = rawFormat.readString(in);
        long eventTime = in.readLong();
        long digestHigh = in.readLong();
        long digestLow = in.readLong();
        long keyedAdIdHash = formatVersion() >= 3 ? in.readLong() : 0L;
        return new Impression(requestId, adId, eventTime, digestHigh, digestLow, keyedAdIdHash, rawFormat.read(in));
    }

    @Override
    public TypeSerializerSnapshot<Impression> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ImpressionSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<Impression> {
        public Snapshot() {
            super(CURRENT_VERSION, ImpressionSerializer::new);
        }
    }
}
