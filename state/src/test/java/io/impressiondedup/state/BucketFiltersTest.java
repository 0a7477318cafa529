package io.impressiondedup.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.state.bloom.ScalableBloomFilter;
import io.impressiondedup.state.identity.FingerprintScheme;
import org.junit.jupiter.api.Test;

class BucketFiltersTest {

    private static ScalableBloomFilter filter(long capacity) {
        return ScalableBloomFilter.create(FingerprintScheme.withKeyBits(64), capacity, 0.01, 1);
    }

    @Test
    void bucketsAreKeptInAscendingOrderWhateverTheInsertOrder() {
        BucketFilters filters = new BucketFilters();
        for (long bucket : new long[] {20, 18, 22, 19, 21, 17}) {
            filters.put(bucket, filter(bucket));
        }
        assertThat(filters.size()).isEqualTo(6);
        for (int i = 0; i < filters.size(); i++) {
            assertThat(filters.bucketAt(i)).isEqualTo(17 + i);
            assertThat(filters.filterAt(i).initialCapacity()).isEqualTo(17 + i);
        }
    }

    @Test
    void firstIndexAtOrAfterFindsTheStartOfARange() {
        BucketFilters filters = new BucketFilters();
        filters.put(10, filter(1));
        filters.put(12, filter(1));
        assertThat(filters.firstIndexAtOrAfter(9)).isEqualTo(0);
        assertThat(filters.firstIndexAtOrAfter(11)).isEqualTo(1);
        assertThat(filters.firstIndexAtOrAfter(12)).isEqualTo(1);
        assertThat(filters.firstIndexAtOrAfter(13)).isEqualTo(2);
    }

    @Test
    void removingABucketKeepsTheOthersInOrder() {
        BucketFilters filters = new BucketFilters();
        filters.put(1, filter(1));
        filters.put(2, filter(2));
        filters.put(3, filter(3));

        assertThat(filters.remove(2).initialCapacity()).isEqualTo(2);
        assertThat(filters.remove(2)).isNull();
        assertThat(filters.get(1)).isNotNull();
        assertThat(filters.get(3).initialCapacity()).isEqualTo(3);
        assertThat(filters.size()).isEqualTo(2);
    }

    @Test
    void copiesAreDeep() {
        BucketFilters filters = new BucketFilters();
        filters.put(1, filter(5));
        BucketFilters copy = filters.copy();
        assertThat(copy).isEqualTo(filters);
        filters.remove(1);
        assertThat(copy.get(1)).isNotNull();
    }
}
