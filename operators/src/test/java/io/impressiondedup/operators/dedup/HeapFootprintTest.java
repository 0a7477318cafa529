package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;
import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.restore.DedupStateLayout;
import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import java.lang.reflect.Field;
import java.util.Map;
import org.apache.flink.runtime.state.heap.HeapKeyedStateBackend;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * On the HashMap backend a full filter costs its bits plus one map entry per page (the map node, the
 * boxed page address, the TTL wrapper and the array header: under 100 bytes per 2 KiB page), so the
 * heap it takes stays within 10% of the raw bits. Measured with JOL on the backend's own state table,
 * as the growth from one page to all pages: the table also has a fixed cost (one small map per key
 * group, about 90 KB for 128 key groups) that does not grow with the filter. A page takes its whole array from its
 * first write, so a filter whose every page is written takes the heap of a full one: a few thousand impressions write
 * every page of a plan of 100,000 (asserted), where filling it would take 100,000 records through the harness.
 */
class HeapFootprintTest {

    @Test
    void aFilterWithEveryPageWrittenOnTheHashMapBackendTakesAtMostTenPercentMoreHeapThanItsBits() throws Exception {
        int capacity = 100_000;
        int impressions = 2_000;
        DedupSettings settings = DedupOperatorTest.settings(capacity, 1);
        try (DedupHarness h = DedupHarness.open(settings, Backend.HASHMAP)) {
            h.process(impression("request-0", "ad", T0));
            long onePageBytes = GraphLayout.parseInstance(stateTable(h, DedupStateLayout.PAGES)).totalSize();
            for (int i = 1; i < impressions; i++) {
                h.process(impression("request-" + i, "ad", T0 + i));
            }
            h.snapshot(1);
            int shardKey = h.shardKeyOf(impression("request-0", "ad", T0));
            ScalableBloomFilter filter = (ScalableBloomFilter) h.storedDirectory(shardKey).get(T0 / TestImpressions.DAY);
            assertThat(filter.layerCount()).isEqualTo(1);
            BloomGeometry geometry = filter.layers().get(0).geometry();
            assertThat(h.pagesPerBucket(shardKey).values()).containsExactly((long) geometry.numPages());

            long fullBytes = GraphLayout.parseInstance(stateTable(h, DedupStateLayout.PAGES)).totalSize();

            long bitsAdded = geometry.bytes() - geometry.wordsPerFullPage() * 8L;
            double ratio = (double) (fullBytes - onePageBytes) / bitsAdded;
            System.out.printf("heap footprint: %,d more bytes for %,d more bytes of bits in %,d pages: %.4fx (fixed part %,d bytes)%n",
                    fullBytes - onePageBytes, bitsAdded, geometry.numPages() - 1, ratio, onePageBytes - geometry.wordsPerFullPage() * 8L);
            assertThat(ratio).isBetween(1.0, 1.10);
        }
    }

    private static Object stateTable(DedupHarness h, String stateName) throws Exception {
        HeapKeyedStateBackend<?> backend = (HeapKeyedStateBackend<?>) h.harness.getOperator().getKeyedStateBackend();
        Field field = HeapKeyedStateBackend.class.getDeclaredField("registeredKVStates");
        field.setAccessible(true);
        return ((Map<?, ?>) field.get(backend)).get(stateName);
    }
}
