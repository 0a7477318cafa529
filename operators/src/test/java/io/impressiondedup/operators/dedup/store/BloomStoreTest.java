package io.impressiondedup.operators.dedup.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.state.bloom.BloomGeometry;
import io.impressiondedup.state.bloom.PageGroup;
import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import org.junit.jupiter.api.Test;

class BloomStoreTest {

    /** Two buckets of one plan: their filters share a geometry, so their pages at an index share one group. */
    private final ScalableBloomFilter first = ScalableBloomFilter.create(FingerprintScheme.withKeyBits(64), 10_000, 0.001, 1);
    private final ScalableBloomFilter second = ScalableBloomFilter.create(FingerprintScheme.withKeyBits(64), 10_000, 0.001, 1);
    private final HeapMapState<PageGroup> groups = new HeapMapState<>();
    private final BloomStore store = BloomStore.uncached(groups);

    @Test
    void aPageIsChangedInItsGroupsArrayAndTheGroupWrittenBackAsItIs() {
        BloomGeometry geometry = first.layer(0).geometry();
        store.select(20_000, first);
        assertThat(geometry.put(store, 0, 1L << 40, 77)).isTrue();
        store.select(20_001, second);
        assertThat(geometry.put(store, 0, 1L << 40, 99)).isTrue();

        store.select(20_000, first);
        long[] array = store.readPage(0, 0);
        PageGroup group = groups.get(groups.keys().iterator().next());
        assertThat(array).isSameAs(group.array());
        assertThat(store.pageOffset()).isEqualTo(group.offsetOf(20_000, 0));
        assertThat(geometry.mightContain(store, 0, 1L << 40, 77)).isTrue();
        store.select(20_001, second);
        assertThat(geometry.mightContain(store, 0, 1L << 40, 99)).isTrue();
        assertThat(geometry.mightContain(store, 0, 1L << 40, 77)).as("the other bucket's element").isFalse();
    }

    @Test
    void anArrayReadBeforeItsGroupChangedIsRefusedNotWrittenAsAPage() {
        BloomGeometry geometry = first.layer(0).geometry();
        store.select(20_000, first);
        geometry.put(store, 0, 1L << 40, 77);
        long[] readBefore = store.readPage(0, 0);

        store.select(20_001, second); // a new page at the same index: its group gets a larger array
        store.writePage(0, 0, new long[geometry.wordsInPage(0)]);

        store.select(20_000, first);
        assertThatThrownBy(() -> store.writePage(0, 0, readBefore))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("an array read before the group changed");
        assertThat(geometry.mightContain(store, 0, 1L << 40, 77)).as("the page as it was").isTrue();
    }
}
