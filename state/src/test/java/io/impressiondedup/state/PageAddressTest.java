package io.impressiondedup.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PageAddressTest {

    @ParameterizedTest
    @CsvSource({"20414, 0, 0", "20414, 3, 16777215", "-5, 255, 7", "2147483647, 1, 1", "-2147483648, 0, 0"})
    void packAndUnpackRoundTrip(long bucket, int layer, int page) {
        long address = PageAddress.pack(bucket, layer, page);
        assertThat(PageAddress.bucket(address)).isEqualTo(bucket);
        assertThat(PageAddress.layer(address)).isEqualTo(layer);
        assertThat(PageAddress.page(address)).isEqualTo(page);
    }

    @Test
    void pagesOfOneBucketSortTogetherInKeyOrder() {
        assertThat(PageAddress.pack(20414, 255, 16_777_215)).isLessThan(PageAddress.pack(20415, 0, 0));
        assertThat(PageAddress.pack(20414, 0, 16_777_215)).isLessThan(PageAddress.pack(20414, 1, 0));
    }

    @Test
    void outOfRangePartsAreRejected() {
        assertThatThrownBy(() -> PageAddress.pack(1L << 40, 0, 0)).hasMessageContaining("1099511627776");
        assertThatThrownBy(() -> PageAddress.pack(1, 256, 0)).hasMessageContaining("256");
        assertThatThrownBy(() -> PageAddress.pack(1, 0, 1 << 24)).hasMessageContaining("16777216");
    }
}
