package io.impressiondedup.state.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PageGroupTest {

    @Test
    void subPagesAreFoundByBucketAndLayer() {
        PageGroup group = new PageGroup();
        long[] a = {1};
        long[] b = {2};
        long[] c = {3};
        group.put(20000, 0, a);
        group.put(20001, 0, b);
        group.put(20001, 1, c);

        assertThat(group.find(20000, 0)).isSameAs(a);
        assertThat(group.find(20001, 1)).isSameAs(c);
        assertThat(group.find(20000, 1)).isNull();
        assertThat(group.size()).isEqualTo(3);
    }

    @Test
    void puttingAnExistingOwnerReplacesItsPage() {
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {1});
        long[] replacement = {9};
        group.put(1, 0, replacement);
        assertThat(group.size()).isEqualTo(1);
        assertThat(group.find(1, 0)).isSameAs(replacement);
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
    }

    @Test
    void copiesAreDeep() {
        PageGroup group = new PageGroup();
        group.put(1, 0, new long[] {5});
        PageGroup copy = group.copy();
        group.find(1, 0)[0] = 6;
        assertThat(copy.find(1, 0)).containsExactly(5);
        assertThat(copy).isNotEqualTo(group);
    }
}
