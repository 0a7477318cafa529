package io.impressiondedup.operators.stats;

import io.impressiondedup.state.serialization.VersionedSerializer;
import io.impressiondedup.state.serialization.VersionedSerializerSnapshot;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializers of the stats types, explicit so that nothing falls back to Kryo. {@link StatsCounts}
 * and {@link StatsKey} are in state (the pre-aggregators' pending partials, the combiner's counts and
 * key), so their formats must never change without a new version.
 *
 * <p>Formats, version 1: {@code StatsKey} = topic (UTF), partition (int), hour start (long), close time
 * (long); {@code StatsCounts} = unique, duplicates, late (longs), n (unsigned byte), n dead-letter counts
 * (longs, by {@code DeadLetterReason} ordinal: a reason added later reads as 0); {@code StatsPartial} = key,
 * counts; {@code StatsRow} = key, counts, complete (boolean); {@code RecordOutcome} = topic (UTF),
 * partition (int), event time (long), outcome ordinal (byte).
 */
public final class StatsSerializers {

    private StatsSerializers() {}

    static void writeKey(StatsKey key, DataOutputView out) throws IOException {
        out.writeUTF(key.topic());
        out.writeInt(key.partition());
        out.writeLong(key.hourStart());
        out.writeLong(key.closeTime());
    }

    static StatsKey readKey(DataInputView in) throws IOException {
        return new StatsKey(in.readUTF(), in.readInt(), in.readLong(), in.readLong());
    }

    static void writeCounts(StatsCounts counts, DataOutputView out) throws IOException {
        out.writeLong(counts.unique());
        out.writeLong(counts.duplicates());
        out.writeLong(counts.late());
        long[] deadLettered = counts.deadLetteredByOrdinal();
        out.writeByte(deadLettered.length);
        for (long count : deadLettered) {
            out.writeLong(count);
        }
    }

    static StatsCounts readCounts(DataInputView in) throws IOException {
        long unique = in.readLong();
        long duplicates = in.readLong();
        long late = in.readLong();
        long[] deadLettered = new long[in.readUnsignedByte()];
        for (int i = 0; i < deadLettered.length; i++) {
            deadLettered[i] = in.readLong();
        }
        return new StatsCounts(unique, duplicates, late, deadLettered);
    }

    /** Serializer of {@link StatsKey} (immutable). */
    public static final class StatsKeySerializer extends VersionedSerializer<StatsKey> {
        private static final long serialVersionUID = 1L;
        public static final int CURRENT_VERSION = 1;
        public static final StatsKeySerializer INSTANCE = new StatsKeySerializer(CURRENT_VERSION);

        StatsKeySerializer(int version) {
            super(version, CURRENT_VERSION);
        }

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public StatsKey createInstance() {
            return null;
        }

        @Override
        public StatsKey copy(StatsKey from) {
            return from;
        }

        @Override
        public void serialize(StatsKey key, DataOutputView out) throws IOException {
            writeKey(key, out);
        }

        @Override
        public StatsKey deserialize(DataInputView in) throws IOException {
            return readKey(in);
        }

        @Override
        public TypeSerializerSnapshot<StatsKey> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link StatsKeySerializer}. */
        public static final class Snapshot extends VersionedSerializerSnapshot<StatsKey> {
            public Snapshot() {
                super(CURRENT_VERSION, StatsKeySerializer::new);
            }
        }
    }

    /** Serializer of {@link StatsCounts} (mutable: {@link #copy} copies). */
    public static final class StatsCountsSerializer extends VersionedSerializer<StatsCounts> {
        private static final long serialVersionUID = 1L;
        public static final int CURRENT_VERSION = 1;
        public static final StatsCountsSerializer INSTANCE = new StatsCountsSerializer(CURRENT_VERSION);

        StatsCountsSerializer(int version) {
            super(version, CURRENT_VERSION);
        }

        @Override
        public StatsCounts createInstance() {
            return new StatsCounts();
        }

        @Override
        public StatsCounts copy(StatsCounts from) {
            return from.copy();
        }

        @Override
        public void serialize(StatsCounts counts, DataOutputView out) throws IOException {
            writeCounts(counts, out);
        }

        @Override
        public StatsCounts deserialize(DataInputView in) throws IOException {
            return readCounts(in);
        }

        @Override
        public TypeSerializerSnapshot<StatsCounts> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link StatsCountsSerializer}. */
        public static final class Snapshot extends VersionedSerializerSnapshot<StatsCounts> {
            public Snapshot() {
                super(CURRENT_VERSION, StatsCountsSerializer::new);
            }
        }
    }

    /** Serializer of {@link StatsPartial} (its counts are mutable: {@link #copy} copies them). */
    public static final class StatsPartialSerializer extends VersionedSerializer<StatsPartial> {
        private static final long serialVersionUID = 1L;
        public static final int CURRENT_VERSION = 1;
        public static final StatsPartialSerializer INSTANCE = new StatsPartialSerializer(CURRENT_VERSION);

        StatsPartialSerializer(int version) {
            super(version, CURRENT_VERSION);
        }

        @Override
        public StatsPartial createInstance() {
            return null;
        }

        @Override
        public StatsPartial copy(StatsPartial from) {
            return new StatsPartial(from.key(), from.counts().copy());
        }

        @Override
        public void serialize(StatsPartial partial, DataOutputView out) throws IOException {
            writeKey(partial.key(), out);
            writeCounts(partial.counts(), out);
        }

        @Override
        public StatsPartial deserialize(DataInputView in) throws IOException {
            return new StatsPartial(readKey(in), readCounts(in));
        }

        @Override
        public TypeSerializerSnapshot<StatsPartial> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link StatsPartialSerializer}. */
        public static final class Snapshot extends VersionedSerializerSnapshot<StatsPartial> {
            public Snapshot() {
                super(CURRENT_VERSION, StatsPartialSerializer::new);
            }
        }
    }

    /** Serializer of {@link StatsRow} (its counts are mutable: {@link #copy} copies them). */
    public static final class StatsRowSerializer extends VersionedSerializer<StatsRow> {
        private static final long serialVersionUID = 1L;
        public static final int CURRENT_VERSION = 1;
        public static final StatsRowSerializer INSTANCE = new StatsRowSerializer(CURRENT_VERSION);

        StatsRowSerializer(int version) {
            super(version, CURRENT_VERSION);
        }

        @Override
        public StatsRow createInstance() {
            return null;
        }

        @Override
        public StatsRow copy(StatsRow from) {
            return new StatsRow(from.key(), from.counts().copy(), from.complete());
        }

        @Override
        public void serialize(StatsRow row, DataOutputView out) throws IOException {
            writeKey(row.key(), out);
            writeCounts(row.counts(), out);
            out.writeBoolean(row.complete());
        }

        @Override
        public StatsRow deserialize(DataInputView in) throws IOException {
            return new StatsRow(readKey(in), readCounts(in), in.readBoolean());
        }

        @Override
        public TypeSerializerSnapshot<StatsRow> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link StatsRowSerializer}. */
        public static final class Snapshot extends VersionedSerializerSnapshot<StatsRow> {
            public Snapshot() {
                super(CURRENT_VERSION, StatsRowSerializer::new);
            }
        }
    }

    /** Serializer of {@link RecordOutcome} (immutable). */
    public static final class RecordOutcomeSerializer extends VersionedSerializer<RecordOutcome> {
        private static final long serialVersionUID = 1L;
        public static final int CURRENT_VERSION = 1;
        public static final RecordOutcomeSerializer INSTANCE = new RecordOutcomeSerializer(CURRENT_VERSION);
        private static final StatsOutcome[] OUTCOMES = StatsOutcome.values();

        RecordOutcomeSerializer(int version) {
            super(version, CURRENT_VERSION);
        }

        @Override
        public boolean isImmutableType() {
            return true;
        }

        @Override
        public RecordOutcome createInstance() {
            return null;
        }

        @Override
        public RecordOutcome copy(RecordOutcome from) {
            return from;
        }

        @Override
        public void serialize(RecordOutcome outcome, DataOutputView out) throws IOException {
            out.writeUTF(outcome.topic());
            out.writeInt(outcome.partition());
            out.writeLong(outcome.eventTime());
            out.writeByte(outcome.outcome().ordinal());
        }

        @Override
        public RecordOutcome deserialize(DataInputView in) throws IOException {
            String topic = in.readUTF();
            int partition = in.readInt();
            long eventTime = in.readLong();
            int ordinal = in.readUnsignedByte();
            if (ordinal >= OUTCOMES.length) {
                throw new IOException("Unknown stats outcome ordinal " + ordinal);
            }
            return new RecordOutcome(topic, partition, eventTime, OUTCOMES[ordinal]);
        }

        @Override
        public TypeSerializerSnapshot<RecordOutcome> snapshotConfiguration() {
            return new Snapshot();
        }

        /** Snapshot of {@link RecordOutcomeSerializer}. */
        public static final class Snapshot extends VersionedSerializerSnapshot<RecordOutcome> {
            public Snapshot() {
                super(CURRENT_VERSION, RecordOutcomeSerializer::new);
            }
        }
    }
}
