package io.impressiondedup.operators.dedup.store;

import io.impressiondedup.state.plan.DedupPlan;
import java.io.Serializable;
import java.util.Locale;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.TaskManagerOptions;

/**
 * How many heap bytes one dedup subtask's page cache ({@link PageCache}) may hold: a fixed figure
 * ({@code --page-cache-bytes}), or, by default on RocksDB, a share of the task heap the TaskManager it
 * runs on gives each slot, so that the state is served from memory wherever the TaskManager has it,
 * without a flag.
 *
 * <p>The share is two thirds of {@code taskmanager.memory.task.heap.size / numberOfTaskSlots}.
 * A slot runs one subtask of each of the job's operators; besides the cache, their heap holds the Kafka
 * clients' buffers (a fetch of up to 1 MiB per partition, producer batches of 64 KiB per partition
 * written) and records in flight, a few MiB, and the collector needs room to work. Network buffers and
 * RocksDB are off-heap. On Flink's default TaskManager (process 1728m: task heap 384 MiB) the share is
 * 64 MiB with 4 slots and 256 MiB with the distribution's 1 slot; a
 * TaskManager with 8 GiB of task heap and 4 slots gives 1.33 GiB, the page groups of about 130M
 * impressions per bucket ({@code plan} prints what a budget holds).
 *
 * <p>Where the TaskManager declares no task heap (a local environment sets it to "unbounded"), the
 * JVM's maximum heap stands for it. Resolved on the TaskManager, in the operator's {@code open()}.
 */
public final class PageCacheBudget implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final long FROM_TASK_HEAP = -1;

    /** A fixed budget, or {@link #FROM_TASK_HEAP}. */
    private final long bytes;

    private PageCacheBudget(long bytes) {
        this.bytes = bytes;
    }

    /** A fixed budget of {@code bytes} per subtask; 0 turns the cache off. */
    public static PageCacheBudget ofBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("page cache bytes must be 0 (off) or positive, but was " + bytes);
        }
        return new PageCacheBudget(bytes);
    }

    /** Two thirds of each slot's task heap, resolved where the subtask runs. */
    public static PageCacheBudget shareOfTaskHeap() {
        return new PageCacheBudget(FROM_TASK_HEAP);
    }

    /** Whether this budget is a share of the task heap rather than a fixed figure. */
    public boolean isShareOfTaskHeap() {
        return bytes == FROM_TASK_HEAP;
    }

    /** The fixed budget; only for a budget that {@link #isShareOfTaskHeap() is not a share}. */
    public long fixedBytes() {
        if (isShareOfTaskHeap()) {
            throw new IllegalStateException("a share of the task heap has no fixed size");
        }
        return bytes;
    }

    /**
     * The budget of a subtask on the TaskManager whose configuration is {@code taskManager}, in a JVM whose
     * maximum heap is {@code jvmMaxHeapBytes}.
     */
    public long resolve(ReadableConfig taskManager, long jvmMaxHeapBytes) {
        if (!isShareOfTaskHeap()) {
            return bytes;
        }
        long taskHeap = taskManager.getOptional(TaskManagerOptions.TASK_HEAP_MEMORY).map(MemorySize::getBytes).orElse(Long.MAX_VALUE);
        return shareOf(Math.min(taskHeap, jvmMaxHeapBytes), taskManager.get(TaskManagerOptions.NUM_TASK_SLOTS));
    }

    /** Two thirds of {@code taskHeapBytes / slots}. */
    public static long shareOf(long taskHeapBytes, int slots) {
        return taskHeapBytes / Math.max(1, slots) / 3 * 2;
    }

    /** Heap bytes one cached page group of {@code plan} takes, with the cache's own share ({@link PageCache}). */
    public static long bytesPerGroup(DedupPlan plan) {
        return PageCache.bytesPerGroup(plan);
    }

    /** Heap bytes one cached fingerprint page of {@code plan} takes, with the cache's own share ({@link PageCache}). */
    public static long bytesPerFingerprintPage(DedupPlan plan) {
        return PageCache.bytesPerFingerprintPage(plan);
    }

    /** For logs and {@code plan}: "64 MiB", or "2/3 of each slot's task heap". */
    public String describe() {
        return isShareOfTaskHeap() ? "2/3 of each slot's task heap" : describeBytes(bytes);
    }

    /** "64 MiB" for whole mebibytes, "1,234 B" otherwise. */
    public static String describeBytes(long bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : String.format(Locale.ROOT, "%,d B", bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PageCacheBudget other && other.bytes == bytes;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bytes);
    }

    @Override
    public String toString() {
        return describe();
    }
}
