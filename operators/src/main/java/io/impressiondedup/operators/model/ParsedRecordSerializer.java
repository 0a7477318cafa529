package io.impressiondedup.operators.model;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Serializer of {@link ParsedRecord}. Format: a tag byte (0 impression, 1 dead letter), then the
 * record by {@link ImpressionSerializer} of the same version or {@link DeadLetterSerializer} of the
 * same version up to 2 (v1: Flink's strings, v2: UTF-8 in one piece, v3: an impression carries its
 * keyed ad-id hash). A serializer restored from a v1 or v2 snapshot reads and writes that version. It holds its own inner serializers, which are not thread-safe, so neither is it, and
 * {@link #duplicate()} returns a new instance.
 */
public final class ParsedRecordSerializer extends VersionedSerializer<ParsedRecord> {

    private static final long serialVersionUID = 1L;

    public static final int CURRENT_VERSION = 3;
    /** The current format's serializer: a template, one thread at a time; {@link #duplicate()} it for another. */
    public static final ParsedRecordSerializer INSTANCE = new ParsedRecordSerializer(CURRENT_VERSION);

    private static final int IMPRESSION = 0;
    private static final int DEAD_LETTER = 1;

    private final ImpressionSerializer impressions;
    private final DeadLetterSerializer deadLetters;

    ParsedRecordSerializer(int formatVersion) {
        super(formatVersion, CURRENT_VERSION);
        this.impressions = new ImpressionSerializer(formatVersion);
        this.deadLetters = new DeadLetterSerializer(Math.min(formatVersion, DeadLetterSerializer.CURRENT_VERSION));
    }

    @Override
    public ParsedRecordSerializer duplicate() {
        return new ParsedRecordSerializer(formatVersion());
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
            impressions.serialize(record.impression(), out);
        } else {
            out.writeByte(DEAD_LETTER);
            deadLetters.serialize(record.deadLetter(), out);
        }
    }

    @Override
    public ParsedRecord deserialize(DataInputView in) throws IOException {
        int tag = in.readUnsignedByte();
        switch (tag) {
            case IMPRESSION:
                return ParsedRecord.of(impressions.deserialize(in));
            case DEAD_LETTER:
                return ParsedRecord.of(deadLetters.deserialize(in));
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
