package io.impressiondedup.tools.savepoint;

import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/** {@link MapState} of one shard's pages over a plain map, for the page stores ({@code MapStateVs}, {@code MapStateFingerprintPages}) outside Flink. */
public final class HeapMapState<V> implements MapState<Long, V> {

    public final Map<Long, V> map;

    public HeapMapState(Map<Long, V> map) {
        this.map = map;
    }

    @Override public V get(Long key) { return map.get(key); }
    @Override public void put(Long key, V value) { map.put(key, value); }
    @Override public void putAll(Map<Long, V> all) { map.putAll(all); }
    @Override public void remove(Long key) { map.remove(key); }
    @Override public boolean contains(Long key) { return map.containsKey(key); }
    @Override public Iterable<Map.Entry<Long, V>> entries() { return map.entrySet(); }
    @Override public Iterable<Long> keys() { return map.keySet(); }
    @Override public Iterable<V> values() { return map.values(); }
    @Override public Iterator<Map.Entry<Long, V>> iterator() { return map.entrySet().iterator(); }
    @Override public boolean isEmpty() { return map.isEmpty(); }
    @Override public void clear() { map.clear(); }
}
