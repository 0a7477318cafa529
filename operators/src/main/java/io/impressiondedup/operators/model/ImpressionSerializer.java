package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link Impression} between operators (and of in-flight records in unaligned
 * checkpoints). Format v1: request id, ad id, event time, digest high and low, then the raw record
 * ({@link RawKafkaRecordFormat}).
 */
public final class ImpressionSerializer extends VersionedSerializer<Impression> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final ImpressionSerializer INSTANCE = new ImpressionSerializer(CURRENT_VERSION);

    ImpressionSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
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
        StringSerializer.INSTANCE.serialize(impression.requestId(), out);
        StringSerializer.INSTANCE.serialize(impression.adId(), out);
        out.writeLong(impression.eventTime());
        out.writeLong(impression.digestHigh());
        out.writeLong(impression.digestLow());
        RawKafkaRecordFormat.write(impression.raw(), out);
    }

    @Override
    public Impression deserialize(DataInputView in) throws IOException {
        String requestId = StringSerializer.INSTANCE.deserialize(in);
        String adId = StringSerializer.INSTANCE.deserialize(in);
        long eventTime = in.readLong();
        long digestHigh = in.readLong();
        long digestLow = in.readLong();
        return new Impression(requestId, adId, eventTime, digestHigh, digestLow, RawKafkaRecordFormat.read(in));
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
