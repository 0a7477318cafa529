package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link DeadLetter}. Format: reason ordinal (byte), error message, raw record, the
 * strings and the raw record in the format of the same version ({@link RawKafkaRecordFormat}: v1
 * Flink's strings, v2 UTF-8 in one piece). A serializer restored from a v1 snapshot reads and writes
 * v1. It holds a scratch buffer and the last topic name decoded, so it is not thread-safe and
 * {@link #duplicate()} returns a new instance.
 */
public final class DeadLetterSerializer extends VersionedSerializer<DeadLetter> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 2;
    /** The current format's serializer: a template, one thread at a time; {@link #duplicate()} it for another. */
    public static final DeadLetterSerializer INSTANCE = new DeadLetterSerializer(CURRENT_VERSION);

    private static final DeadLetterReason[] REASONS = DeadLetterReason.values();

    private final RawKafkaRecordFormat rawFormat;

    DeadLetterSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
        this.rawFormat = new RawKafkaRecordFormat(formatVersion);
    }

    @Override
    public DeadLetterSerializer duplicate() {
        return new DeadLetterSerializer(formatVersion());
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
        rawFormat.writeString(deadLetter.error(), out);
        rawFormat.write(deadLetter.raw(), out);
    }

    @Override
    public DeadLetter deserialize(DataInputView in) throws IOException {
        int ordinal = in.readUnsignedByte();
        if (ordinal >= REASONS.length) {
            throw new IOException("Unknown dead-letter reason ordinal " + ordinal);
        }
        String error = rawFormat.readString(in);
        return new DeadLetter(rawFormat.read(in), REASONS[ordinal], error);
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
