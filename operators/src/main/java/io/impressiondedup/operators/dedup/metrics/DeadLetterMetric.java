package io.impressiondedup.operators.dedup.metrics;

import io.impressiondedup.operators.model.DeadLetterReason;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The counter {@value #NAME} of records sent to the dead-letter topic, one per {@link DeadLetterReason}, under the
 * key-value metric group {@value #REASON_KEY}{@code =<reason>}.
 *
 * <p>Why a key-value group rather than a counter per reason: Flink's Prometheus reporter turns the group's key into a
 * label, so every operator that dead-letters (the router for {@code malformed}, {@code oversized} and {@code
 * future-timestamp}, the dedup operator for {@code late}) exports one series name, {@code
 * flink_taskmanager_job_task_operator_reason_dead_letters{reason="malformed",...}}, and a dashboard or an alert sums
 * it {@code by (reason)} without knowing the reasons in advance. The label's value is the {@code dedup.reason}
 * header's, except that the reporter writes {@code -} as {@code _} ({@code reason="future_timestamp"}). The counter is incremented where the record is routed
 * to the dead-letter output, so it counts what the dead-letter sink receives: a late record kept or dropped under
 * another {@code --late-policy} is not counted here (it is in {@code late}).
 */
public final class DeadLetterMetric {

    /** The metric group key, exported by Prometheus as the label {@code reason}. */
    public static final String REASON_KEY = "reason";
    /** The counter's name within the reason's group. */
    public static final String NAME = "dead-letters";

    private DeadLetterMetric() {}

    /** Registers the {@value #NAME} counter of {@code reason} in {@code operatorGroup} (the operator's metric group). */
    public static Counter register(MetricGroup operatorGroup, DeadLetterReason reason) {
        return operatorGroup.addGroup(REASON_KEY, reason.headerValue()).counter(NAME);
    }
}
