package io.impressiondedup.job.io.kafka;

import java.util.concurrent.atomic.AtomicBoolean;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.util.Native;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's LZ4 codec in native code for the job's own Kafka clients, also when the job runs as user
 * code on a Flink cluster.
 *
 * <p><b>Why.</b> Kafka's clients compress (the sinks, {@code compression.type=lz4} by default) and
 * decompress (the source, whatever codec the producers of the input used) LZ4 batches with lz4-java's
 * {@code LZ4Factory.fastestInstance()}. That returns the native (JNI) codec only if lz4-java's library
 * is loaded already, or if lz4-java itself was loaded by the system class loader: lz4-java will not
 * load its library on its own from any other class loader, because a JNI library binds to one class
 * loader. A job submitted to a cluster runs in a user-code class loader, so every batch the job read
 * and wrote went through the pure-Java codec (lz4-java 1.10 has only its bounds-checked "safe" variant
 * left): on the standalone cluster, LZ4 was the largest stage of the TaskManager's CPU profile, for
 * the baselines as for the job (bench/results/2026-11-26-cluster-profile.md). The local run and the
 * tests, with the job on the application class path, already had the native codec.
 *
 * <p><b>How.</b> {@link #load()} asks lz4-java for its native codec once per class loader, at the
 * first open of the source's deserializer or the output's serializer, before any batch is read or
 * written; from then on {@code fastestInstance()} returns it in this class loader. lz4-java extracts
 * its library to a temporary file of a name of its own, so each job on a TaskManager loads its own copy
 * with its own class loader, and the copy goes with that loader.
 *
 * <p><b>On a session cluster.</b> The library does not keep the job's class loader: the JVM unloads a
 * native library when the class loader that loaded it is collected (on the standalone cluster of
 * deploy/local, heap dumps after a cancelled job show no path from a GC root to its loader through the
 * library, and the loader is gone after two forced GCs; lz4-java's native hashes are finalizable, which
 * costs the one GC more). What a job leaves is the extracted file, about 230 KB in {@code
 * java.io.tmpdir} per job and TaskManager, until the TaskManager exits (lz4-java deletes it on a normal
 * exit). So the library is loaded in the
 * job's class loader rather than once in a parent one: that would need lz4-java on the cluster's class
 * path and the job's jar without it, and the jar would then not run on a cluster without it.
 *
 * <p>If the library cannot be loaded (a
 * platform lz4-java has no library for, a temporary directory that forbids executables), nothing
 * changes: Kafka keeps its Java codec, and the first failure is logged once as a warning.
 * The bytes on the wire are the same with either codec (the LZ4 frame format).
 */
public final class NativeLz4 {

    private static final Logger LOG = LoggerFactory.getLogger(NativeLz4.class);
    private static final AtomicBoolean TRIED = new AtomicBoolean();

    private NativeLz4() {}

    /** Loads lz4-java's native library in this class loader, once; returns whether Kafka's clients now get the native codec. */
    public static boolean load() {
        if (TRIED.compareAndSet(false, true)) {
            try {
                LZ4Factory.nativeInstance();
                LOG.info("LZ4 for the job's Kafka clients: lz4-java's native codec");
            } catch (Throwable e) {
                LOG.warn("LZ4 for the job's Kafka clients: lz4-java's Java codec (its native library did not load: {})", e.toString());
            }
        }
        return isNative();
    }

    /**
     * Whether Kafka's clients, which take {@code LZ4Factory.fastestInstance()}, get the native codec in
     * this class loader: whether lz4-java's library is loaded here. Loads nothing itself.
     */
    public static boolean isNative() {
        return Native.isLoaded();
    }
}
