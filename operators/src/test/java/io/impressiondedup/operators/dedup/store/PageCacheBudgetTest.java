package io.impressiondedup.operators.dedup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.TaskManagerOptions;
import org.junit.jupiter.api.Test;

class PageCacheBudgetTest {

    static final long MIB = 1L << 20;
    static final long JVM_HEAP = 4096 * MIB;

    static Configuration taskManager(String taskHeap, int slots) {
        Configuration configuration = new Configuration();
        if (taskHeap != null) {
            configuration.set(TaskManagerOptions.TASK_HEAP_MEMORY, MemorySize.parse(taskHeap));
        }
        configuration.set(TaskManagerOptions.NUM_TASK_SLOTS, slots);
        return configuration;
    }

    @Test
    void aShareIsThreeQuartersOfEachSlotsTaskHeap() {
        PageCacheBudget share = PageCacheBudget.shareOfTaskHeap();

        // Flink's default TaskManager (process 1728m: task heap 384m), at 4 slots.
        assertThat(share.resolve(taskManager("384m", 4), JVM_HEAP)).isEqualTo(72 * MIB);
        assertThat(share.resolve(taskManager("384m", 1), JVM_HEAP)).isEqualTo(288 * MIB);
        assertThat(share.resolve(taskManager("384m", 2), JVM_HEAP)).isEqualTo(144 * MIB);
        assertThat(share.resolve(taskManager("8g", 4), 16384 * MIB)).isEqualTo(1536 * MIB);
    }

    @Test
    void withoutADeclaredTaskHeapOrAboveTheJvmsTheJvmsMaximumHeapStandsForIt() {
        PageCacheBudget share = PageCacheBudget.shareOfTaskHeap();

        assertThat(share.resolve(taskManager(null, 2), 768 * MIB)).isEqualTo(288 * MIB);
        // A local environment declares an unbounded task heap.
        assertThat(share.resolve(taskManager(MemorySize.MAX_VALUE.toString(), 1), 768 * MIB)).isEqualTo(576 * MIB);
    }

    @Test
    void aFixedBudgetIsTheSameOnEveryTaskManager() {
        assertThat(PageCacheBudget.ofBytes(8 * MIB).resolve(taskManager("384m", 4), JVM_HEAP)).isEqualTo(8 * MIB);
        assertThat(PageCacheBudget.ofBytes(0).resolve(taskManager("8g", 1), JVM_HEAP)).isZero();
        assertThat(PageCacheBudget.ofBytes(8 * MIB).describe()).isEqualTo("8 MiB");
        assertThat(PageCacheBudget.shareOfTaskHeap().describe()).isEqualTo("3/4 of each slot's task heap");
        assertThatThrownBy(() -> PageCacheBudget.ofBytes(-1)).hasMessageContaining("must be 0 (off) or positive, but was -1");
        assertThatThrownBy(() -> PageCacheBudget.shareOfTaskHeap().fixedBytes()).isInstanceOf(IllegalStateException.class);
    }
}
