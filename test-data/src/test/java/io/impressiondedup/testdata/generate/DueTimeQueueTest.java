package io.impressiondedup.testdata.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DueTimeQueueTest {

    /** What the generator used before: a PriorityQueue ordered by (due time, tie-break). */
    record Entry(long dueTime, long tieBreak, long id) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry other) {
            int byTime = Long.compare(dueTime, other.dueTime);
            return byTime != 0 ? byTime : Long.compare(tieBreak, other.tieBreak);
        }
    }

    @Test
    void pollsTheSameEntriesInTheSameOrderAsAPriorityQueueOfTheSameKeysEvenOnTies() {
        SplittableRandom random = new SplittableRandom(11);
        DueTimeQueue<Entry> queue = new DueTimeQueue<>();
        PriorityQueue<Entry> reference = new PriorityQueue<>();
        long id = 0;
        for (int step = 0; step < 200_000; step++) {
            if (reference.isEmpty() || random.nextInt(5) < 3) {
                // Few distinct keys, so equal due times and fully equal keys are common: the queue must
                // then pick the very entry the PriorityQueue picks, since the generator's bytes depend on it.
                Entry entry = new Entry(random.nextLong(100), random.nextLong(3), id++);
                queue.add(entry.dueTime(), entry.tieBreak(), entry);
                reference.add(entry);
            } else {
                assertThat(queue.peekDueTime()).isEqualTo(reference.peek().dueTime());
                assertThat(queue.poll()).isSameAs(reference.poll());
            }
            assertThat(queue.size()).isEqualTo(reference.size());
        }
        while (!reference.isEmpty()) {
            assertThat(queue.poll()).isSameAs(reference.poll());
        }
        assertThat(queue.isEmpty()).isTrue();
    }

    @Test
    void anEmptyQueueHasNothingToPeekOrPoll() {
        DueTimeQueue<String> queue = new DueTimeQueue<>();
        assertThatThrownBy(queue::peekDueTime).isInstanceOf(NoSuchElementException.class);
        assertThatThrownBy(queue::poll).isInstanceOf(NoSuchElementException.class);
    }
}
