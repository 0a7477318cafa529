package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PageGroupTest {

    @Test
    void subPagesAreFoundByBucketAndLayer() {
        PageGroup group = new PageGroup();
        group.put(20000, 0, new long[] {1, 11});
        group.put(20001, 0, new long[] {2, 22});
        group.put(20001, 1, new long[] {3});

        assertThat(group.find(20000, 0)).containsExactly(1, 11);
        assertThat(group.find(20001, 1)).containsExactly(3);
        assertThat(group.find(20000, 1)).isNull();
        assertThat(group.offsetOf(20000, 1)).isEqualTo(-1);
        assertThat(group.size()).isEqualTo(3);
        assertThat(group.words()).isEqualTo(5);
    }

    @Test
    void aSubPageIsFoundInPlaceInTheGroupsOneArray() {
        PageGroup group = new PageGroup();
        group.put(7, 0, new long[] {1, 2});
        group.put(8, 0, new long[] {3, 4});
        group.put(8, 1, new long[] {5});

        // count, three (owner, length) pairs, then the words in order
        assertThat(group.array()).containsExactly(3, 7L << 8, 2, 8L << 8, 2, (8L << 8) | 1, 1, 1, 2, 3, 4, 5);
        int offset = group.offsetOf(8, 0);
        assertThat(offset).isEqualTo(9);
        group.array()[offset + 1] = 40; // an insert changes the words where they are
        assertThat(group.find(8, 0)).containsExactly(3, 40);
        assertThat(group.heapBytes()).isEqualTo(16 + 16 + 8 * 12);
    }

    @Test
    void puttingAnExistingOwnerReplacesItsPageWhateverItsLength() {
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {1});
        group.put(2, 0, new long[] {2});
        long[] replacement = {9};
        group.put(1, 0, replacement);
        replacement[0] = 10; // put copies the words in
        assertThat(group.size()).isEqualTo(2);
        assertThat(group.find(1, 0)).containsExactly(9);

        group.put(1, 0, new long[] {7, 8, 9});
        assertThat(group.find(1, 0)).containsExactly(7, 8, 9);
        assertThat(group.find(2, 0)).containsExactly(2);
        assertThat(group.array()).hasSize(1 + 4 + 4);
    }

    @Test
    void removingABucketDropsAllItsLayersAndKeepsTheRest() {
        PageGroup group = new PageGroup();
        for (int i = 0; i < 6; i++) {
            group.put(i % 3, i / 3, new long[] {i});
        }
        assertThat(group.removeBucket(1)).isTrue();
        assertThat(group.removeBucket(1)).isFalse();
        assertThat(group.size()).isEqualTo(4);
        assertThat(group.find(0, 1)).containsExactly(3);
        assertThat(group.find(2, 0)).containsExactly(2);
        assertThat(group.removeBucket(0) && group.removeBucket(2)).isTrue();
        assertThat(group.isEmpty()).isTrue();
        assertThat(group.array()).containsExactly(0);
    }

    @Test
    void copiesAreDeep() {
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {5});
        PageGroup copy = group.copy();
        group.array()[group.offsetOf(1, 0)] = 6;
        assertThat(copy.find(1, 0)).containsExactly(5);
        assertThat(copy).isNotEqualTo(group);
    }

    @Test
    void groupsOfTheSameSubPagesAreEqualInAnyOrder() {
        PageGroup a = new PageGroup();
        a.put(1, 0, new long[] {1});
        a.put(2, 0, new long[] {2, 3});
        PageGroup b = new PageGroup();
        b.put(2, 0, new long[] {2, 3});
        b.put(1, 0, new long[] {1});
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);

        PageGroup shorter = new PageGroup();
        shorter.put(1, 0, new long[] {1, 2});
        shorter.put(2, 0, new long[] {3});
        assertThat(a).isNotEqualTo(shorter);
    }

    @Test
    void aLayoutIsCheckedWhenAGroupIsMadeOfIt() {
        assertThat(PageGroup.ofLayout(new long[] {1, 5L << 8, 2, 7, 8}).find(5, 0)).containsExactly(7, 8);
        assertThatThrownBy(() -> PageGroup.ofLayout(new long[] {1, 5L << 8, 2, 7})).hasMessageContaining("1 sub-pages of 2 words in 4");
        assertThatThrownBy(() -> PageGroup.ofLayout(new long[] {2, 5L << 8, 0})).hasMessageContaining("2 sub-pages in 3 words");
        assertThatThrownBy(() -> PageGroup.ofLayout(new long[] {1, 5L << 8, -1})).hasMessageContaining("of -1 words");
    }
}
