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
 * <p>The share is three quarters of {@code taskmanager.memory.task.heap.size / numberOfTaskSlots}.
 * A slot runs one subtask of each of the job's operators; besides the cache, their heap holds the Kafka
 * clients' buffers (fetch responses of up to 256 KiB, {@code ConsumerDefaults}; producer batches of 64 KiB
 * per partition written) and records in flight, a few MiB, and the collector needs room to work. Network
 * buffers and RocksDB are off-heap. On Flink's default TaskManager (process 1728m: task heap 384 MiB) the
 * share is 72 MiB with 4 slots and 288 MiB with the distribution's 1 slot; a TaskManager with 8 GiB of task
 * heap and 4 slots gives 1.5 GiB, the page groups of about 150M impressions per bucket ({@code plan} prints
 * what a budget holds).
 *
 * <p><b>Why three quarters</b> rather than two thirds: with 50M impressions restored on Flink's default
 * TaskManager as shipped, a Bloom subtask's pages took about 136 MB (70 MB on the heap, 66 MB in the off-heap
 * tier below), a few MB more than two thirds and the tier held: a 4M-record run evicted 55k dirty groups a
 * subtask to RocksDB, and its checkpoints uploaded 119-120 B per output record. At three quarters it held
 * them all: no dirty eviction, 14.8-16.1 B, the largest full checkpoint 1.21x the savepoint instead of
 * 1.36-1.52x, TaskManager CPU per record 10.86 -> 10.24 us (3 rounds each); with the consumer-weights line,
 * where the state fit either way, 9.88 -> 9.61 us (bench/README.md). The cost: caches that fill every slot's
 * share hold three quarters of the task heap, which keeps the heap past G1's occupancy threshold longer.
 *
 * <p>Where the TaskManager declares no task heap (a local environment sets it to "unbounded"), the
 * JVM's maximum heap stands for it. Resolved on the TaskManager, in the operator's {@code open()}.
 *
 * <p><b>The off-heap tier</b> ({@link OffHeapPageTier}): by default the operator's share of its slot's managed memory (the
 * job declares the operator a consumer of it; Flink divides a slot's managed memory between RocksDB and the operator by
 * {@code taskmanager.memory.managed.consumer-weights}, half each with its defaults: 64 MiB each on Flink's default
 * TaskManager with 4 slots). A fixed size ({@link #withTierBytes}) is for tests that want a small one.
 *
 * <p><b>The tier's share</b> is the cluster's to choose, not the job's: Flink 2.2 reads the consumer weights from the
 * TaskManager's configuration alone ({@code ManagedMemoryUtils#convertToFractionOfSlot}), so a job configuration that sets
 * them changes nothing. {@link #TIER_CONSUMER_WEIGHTS} gives the tier three quarters of a slot's and RocksDB a quarter:
 * a page the operator holds costs no state read, one it lacks costs a RocksDB read however large RocksDB's cache is, and
 * RocksDB's quarter still holds its write buffers, which every checkpoint flushes. With 50M impressions restored it took
 * the Bloom format from 18.4 to 11.7 us of TaskManager CPU per record and from 155 to 16 B of checkpoint per output record
 * on Flink's default TaskManager (docs/SCALING.md section 1b); the clusters this project ships set it (deploy/conf, the
 * Kubernetes manifest), and {@code plan} names it.
 */
public final class PageCacheBudget implements Serializable {

    private static final long serialVersionUID = 2L;

    /** {@code taskmanager.memory.managed.consumer-weights} that give the off-heap tier three quarters of a slot's managed memory. */
    public static final String TIER_CONSUMER_WEIGHTS = "OPERATOR:210,STATE_BACKEND:70,PYTHON:30";

    private static final long FROM_TASK_HEAP = -1;

    /** A fixed budget, or {@link #FROM_TASK_HEAP}. */
    private final long bytes;
    /** Managed memory for the off-heap tier: a fixed size, or {@link #FROM_MANAGED_MEMORY}. */
    private final long tierBytes;

    private static final long FROM_MANAGED_MEMORY = -1;

    private PageCacheBudget(long bytes, long tierBytes) {
        this.bytes = bytes;
        this.tierBytes = tierBytes;
    }

    /** A fixed budget of {@code bytes} per subtask; 0 turns the cache off. */
    public static PageCacheBudget ofBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("page cache bytes must be 0 (off) or positive, but was " + bytes);
        }
        return new PageCacheBudget(bytes, FROM_MANAGED_MEMORY);
    }

    /** Two thirds of each slot's task heap, resolved where the subtask runs. */
    public static PageCacheBudget shareOfTaskHeap() {
        return new PageCacheBudget(FROM_TASK_HEAP, FROM_MANAGED_MEMORY);
    }

    /** This budget with an off-heap tier of {@code tierBytes} of managed memory instead of the operator's share (0: none). */
    public PageCacheBudget withTierBytes(long tierBytes) {
        if (tierBytes < 0) {
            throw new IllegalArgumentException("page tier bytes must be 0 (none) or positive, but was " + tierBytes);
        }
        return new PageCacheBudget(bytes, tierBytes);
    }

    /** The managed memory of the off-heap tier, given the operator's share of its slot's managed memory. */
    public long resolveTier(long operatorShareBytes) {
        return tierBytes == FROM_MANAGED_MEMORY ? operatorShareBytes : tierBytes;
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

    /** Three quarters of {@code taskHeapBytes / slots}. */
    public static long shareOf(long taskHeapBytes, int slots) {
        return taskHeapBytes / Math.max(1, slots) / 4 * 3;
    }

    /** Heap bytes one cached page group of {@code plan} takes, with the cache's own share ({@link PageCache}). */
    public static long bytesPerGroup(DedupPlan plan) {
        return PageCache.bytesPerGroup(plan);
    }

    /** Heap bytes one cached fingerprint page of {@code plan} takes, with the cache's own share ({@link PageCache}). */
    public static long bytesPerFingerprintPage(DedupPlan plan) {
        return PageCache.bytesPerFingerprintPage(plan);
    }

    /** For logs and {@code plan}: "64 MiB", or "3/4 of each slot's task heap". */
    public String describe() {
        return isShareOfTaskHeap() ? "3/4 of each slot's task heap" : describeBytes(bytes);
    }

    /** "64 MiB" for whole mebibytes, "1,234 B" otherwise. */
    public static String describeBytes(long bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : String.format(Locale.ROOT, "%,d B", bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PageCacheBudget other && other.bytes == bytes && other.tierBytes == tierBytes;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bytes) * 31 + Long.hashCode(tierBytes);
    }

    @Override
    public String toString() {
        return describe();
    }
}
