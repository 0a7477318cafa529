package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Serializer of {@link ParsedRecord}. Format v1: a tag byte (0 impression, 1 dead letter), then the record. */
public final class ParsedRecordSerializer extends VersionedSerializer<ParsedRecord> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 1;
    public static final ParsedRecordSerializer INSTANCE = new ParsedRecordSerializer(CURRENT_VERSION);

    private static final int IMPRESSION = 0;
    private static final int DEAD_LETTER = 1;

    ParsedRecordSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
    }

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public ParsedRecord createInstance() {
        return null;
    }

    @Override
    public ParsedRecord copy(ParsedRecord from) {
        return from; // immutable
    }

    @Override
    public void serialize(ParsedRecord record, DataOutputView out) throws IOException {
        if (record.isImpression()) {
            out.writeByte(IMPRESSION);
            ImpressionSerializer.INSTANCE.serialize(record.impression(), out);
        } else {
            out.writeByte(DEAD_LETTER);
            DeadLetterSerializer.INSTANCE.serialize(record.deadLetter(), out);
        }
    }

    @Override
    public ParsedRecord deserialize(DataInputView in) throws IOException {
        int tag = in.readUnsignedByte();
        switch (tag) {
            case IMPRESSION:
                return ParsedRecord.of(ImpressionSerializer.INSTANCE.deserialize(in));
            case DEAD_LETTER:
                return ParsedRecord.of(DeadLetterSerializer.INSTANCE.deserialize(in));
            default:
                throw new IOException("Unknown parsed-record tag " + tag);
        }
    }

    @Override
    public TypeSerializerSnapshot<ParsedRecord> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of {@link ParsedRecordSerializer}. */
    public static final class Snapshot extends VersionedSerializerSnapshot<ParsedRecord> {
        public Snapshot() {
            super(CURRENT_VERSION, ParsedRecordSerializer::new);
        }
    }
}
