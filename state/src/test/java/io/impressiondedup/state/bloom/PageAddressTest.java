package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PageAddressTest {

    @ParameterizedTest
    @CsvSource({"0, 0", "65535, 16777215", "12345, 7"})
    void packAndUnpackRoundTrip(int slot, int page) {
        long address = PageAddress.pack(slot, page);
        assertThat(PageAddress.slot(address)).isEqualTo(slot);
        assertThat(PageAddress.page(address)).isEqualTo(page);
    }

    @Test
    void filtersOfOneGeometryShareASlotWhateverTheirBucket() {
        BloomGeometry a = new BloomGeometry(1000, 9, 32);
        assertThat(PageAddress.slotOf(a)).isEqualTo(PageAddress.slotOf(new BloomGeometry(1000, 9, 32)));
        assertThat(PageAddress.slotOf(a)).isNotEqualTo(PageAddress.slotOf(new BloomGeometry(2000, 9, 32)));
        assertThat(PageAddress.slotOf(a)).isBetween(0, 65535);
    }

    @Test
    void outOfRangePagesAreRejected() {
        assertThatThrownBy(() -> PageAddress.pack(1, 1 << 24)).hasMessageContaining("16777216");
        assertThatThrownBy(() -> PageAddress.pack(1, -1)).hasMessageContaining("-1");
    }
}
