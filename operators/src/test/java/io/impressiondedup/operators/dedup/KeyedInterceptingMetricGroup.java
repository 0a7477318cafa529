package io.impressiondedup.operators.dedup;

import java.util.HashMap;
import java.util.Map;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;

/**
 * Flink's {@link InterceptingOperatorMetricGroup}, which also keeps what is registered in its key-value subgroups
 * ({@code addGroup("reason", "late")}): the interceptor alone hands those to an unregistered group, where a test
 * cannot read them.
 */
final class KeyedInterceptingMetricGroup extends InterceptingOperatorMetricGroup {

    private final Map<String, InterceptingOperatorMetricGroup> subgroups = new HashMap<>();

    @Override
    public MetricGroup addGroup(String key, String value) {
        return subgroups.computeIfAbsent(key + "=" + value, k -> new InterceptingOperatorMetricGroup());
    }

    /** The subgroup {@code key=value}, or {@code null} if nothing registered it. */
    InterceptingOperatorMetricGroup subgroup(String key, String value) {
        return subgroups.get(key + "=" + value);
    }
}
