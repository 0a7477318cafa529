package io.impressiondedup.operators.dedup.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.util.FlinkRuntimeException;

/** What a bucket's expiry does to the current shard's page entries, in either format's page state. */
final class PageEntries {

    private PageEntries() {}

    /**
     * Removes a bucket from every page of {@code pages} ({@code removeBucket} says whether a page held any of it),
     * dropping pages left empty and writing back those changed: one pass over the shard's entries, once per bucket
     * expiry. The changed pages are put after the pass, not during it (RocksDB's iterator reads a snapshot). Each page that
     * stays goes to {@code kept} ({@code null}: nowhere) with its key, as state holds it after the pass.
     */
    static <V> void removeBucket(MapState<Long, V> pages, Predicate<V> removeBucket, Predicate<V> isEmpty, String what,
            BiConsumer<Long, V> kept) {
        try {
            List<Long> changedKeys = new ArrayList<>();
            List<V> changedPages = new ArrayList<>();
            for (Iterator<Map.Entry<Long, V>> it = pages.iterator(); it.hasNext(); ) {
                Map.Entry<Long, V> entry = it.next();
                V page = entry.getValue();
                if (removeBucket.test(page)) {
                    if (isEmpty.test(page)) {
                        it.remove();
                    } else {
                        changedKeys.add(entry.getKey());
                        changedPages.add(page);
                    }
                } else if (kept != null) {
                    kept.accept(entry.getKey(), page);
                }
            }
            for (int i = 0; i < changedKeys.size(); i++) {
                pages.put(changedKeys.get(i), changedPages.get(i));
                if (kept != null) {
                    kept.accept(changedKeys.get(i), changedPages.get(i));
                }
            }
        } catch (Exception e) {
            throw new FlinkRuntimeException("Cannot remove " + what, e);
        }
    }
}
