package io.impressiondedup.tools.savepoint;

import io.impressiondedup.state.PageGroup;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/** {@link MapState} of one shard's page groups over a plain map, for {@code MapStatePageGroups} outside Flink. */
public final class HeapMapState implements MapState<Long, PageGroup> {

    public final Map<Long, PageGroup> map;

    public HeapMapState(Map<Long, PageGroup> map) {
        this.map = map;
    }

    @Override public PageGroup get(Long key) { return map.get(key); }
    @Override public void put(Long key, PageGroup value) { map.put(key, value); }
    @Override public void putAll(Map<Long, PageGroup> all) { map.putAll(all); }
    @Override public void remove(Long key) { map.remove(key); }
    @Override public boolean contains(Long key) { return map.containsKey(key); }
    @Override public Iterable<Map.Entry<Long, PageGroup>> entries() { return map.entrySet(); }
    @Override public Iterable<Long> keys() { return map.keySet(); }
    @Override public Iterable<PageGroup> values() { return map.values(); }
    @Override public Iterator<Map.Entry<Long, PageGroup>> iterator() { return map.entrySet().iterator(); }
    @Override public boolean isEmpty() { return map.isEmpty(); }
    @Override public void clear() { map.clear(); }
}
