package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Serializer of {@link DeadLetter}. Format v1: reason ordinal (byte), error message, raw record. */
public final class DeadLetterSerializer extends VersionedSerializer<DeadLetter> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final DeadLetterSerializer INSTANCE = new DeadLetterSerializer(CURRENT_VERSION);

    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    DeadLetterSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public DeadLetter createInstance() {
        return null;
    }

    @Override
    public DeadLetter copy(DeadLetter from) {
        return from; // immutable
    }

    @Override
    public void serialize(DeadLetter deadLetter, DataOutputView out) throws IOException {
        out.writeByte(deadLetter.reason().ordinal());
        StringSerializer.INSTANCE.serialize(deadLetter.error(), out);
        RawKafkaRecordFormat.write(deadLetter.raw(), out);
    }

    @Override
    public DeadLetter deserialize(DataInputView in) throws IOException {
        int ordinal = in.readUnsignedByte();
        if (ordinal >= REASONS.length) {
            throw new IOException("Unknown dead-letter reason ordinal " + ordinal);
        }
        String error = StringSerializer.INSTANCE.deserialize(in);
        return new DeadLetter(RawKafkaRecordFormat.read(in), REASONS[ordinal], error);
    }

    @Override
    public TypeSerializerSnapshot<DeadLetter> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link DeadLetterSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<DeadLetter> {
        public Snapshot() {
            super(CURRENT_VERSION, DeadLetterSerializer::new);
        }
    }
}
