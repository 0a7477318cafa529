package io.impressiondedup.operators.dedup.store;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/** One key's {@code MapState} on the heap, for stores read and written without a cache: they touch the current shard's pages only. */
final class HeapMapState<V> implements MapState<Long, V> {

    private final Map<Long, V> map = new HashMap<>();

    @Override
    public V get(Long key) {
        return map.get(key);
    }

    @Override
    public void put(Long key, V value) {
        map.put(key, value);
    }

    @Override
    public void putAll(Map<Long, V> values) {
        map.putAll(values);
    }

    @Override
    public void remove(Long key) {
        map.remove(key);
    }

    @Override
    public boolean contains(Long key) {
        return map.containsKey(key);
    }

    @Override
    public Iterable<Map.Entry<Long, V>> entries() {
        return map.entrySet();
    }

    @Override
    public Iterable<Long> keys() {
        return map.keySet();
    }

    @Override
    public Iterable<V> values() {
        return map.values();
    }

    @Override
    public Iterator<Map.Entry<Long, V>> iterator() {
        return map.entrySet().iterator();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    @Override
    public void clear() {
        map.clear();
    }
}
