package io.impressiondedup.state.serialization;

import java.io.IOException;
import java.util.function.IntFunction;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a {@link VersionedSerializer}: all it records is the format version (written by
 * Flink's {@code writeVersionedSnapshot} as the snapshot version), because the serializers have no
 * configuration; what a filter was sized and hashed with is stored inside every value.
 *
 * <p>Compatibility: same version, as is; a lower version, after migration (Flink reads with that
 * version's serializer and writes with the current one); a higher version or another serializer,
 * incompatible, so a job that reads fewer versions fails at restore instead of misreading bits.
 */
public abstract class VersionedSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

    private final int currentVersion;
    private final IntFunction<TypeSerializer<T>> serializerForVersion;
    private int readVersion;

    protected VersionedSerializerSnapshot(int currentVersion, IntFunction<TypeSerializer<T>> serializerForVersion) {
        this.currentVersion = currentVersion;
        this.serializerForVersion = serializerForVersion;
        this.readVersion = currentVersion;
    }

    @Override
    public int getCurrentVersion() {
        return currentVersion;
    }

    /** The version this snapshot was read as (the current one for a freshly taken snapshot). */
    public int readVersion() {
        return readVersion;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // Nothing beyond the version, which Flink writes.
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader) throws IOException {
        if (readVersion < 1 || readVersion > currentVersion) {
            throw new IOException(getClass().getSimpleName() + " reads format versions 1.." + currentVersion
                    + ", but the checkpoint has version " + readVersion
                    + " (written by a newer release of the job?)");
        }
        this.readVersion = readVersion;
    }

    @Override
    public TypeSerializer<T> restoreSerializer() {
        return serializerForVersion.apply(readVersion);
    }

    @Override
    public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(TypeSerializerSnapshot<T> oldSnapshot) {
        if (oldSnapshot == null || oldSnapshot.getClass() != getClass()) {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        int oldVersion = ((VersionedSerializerSnapshot<T>) oldSnapshot).readVersion;
        if (oldVersion == currentVersion) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return oldVersion < currentVersion
                ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
