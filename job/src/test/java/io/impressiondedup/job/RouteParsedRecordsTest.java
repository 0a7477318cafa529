package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.metrics.DeadLetterMetric;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The router's share of the account as metrics: dead letters counted by reason, next to their accumulators. */
class RouteParsedRecordsTest {

    @Test
    void deadLettersAreCountedUnderTheirReasonLabelAndInTheirAccumulators() throws Exception {
        Map<String, InterceptingOperatorMetricGroup> reasonGroups = new HashMap<>();
        InterceptingOperatorMetricGroup metrics = new InterceptingOperatorMetricGroup() {
            @Override
            public MetricGroup addGroup(String key, String value) {
                return reasonGroups.computeIfAbsent(key + "=" + value, k -> new InterceptingOperatorMetricGroup());
            }
        };
        UnregisteredMetricGroups.UnregisteredTaskMetricGroup taskGroup = new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
            @Override
            public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name, Map<String, String> additional) {
                return metrics;
            }
        };
        try (OneInputStreamOperatorTestHarness<ParsedRecord, Impression> harness = new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new RouteParsedRecords(LongestSafeOutage.of(LongestSafeOutageTest.config()))),
                new MockEnvironmentBuilder().setMetricGroup(taskGroup).build())) {
            harness.open();
            harness.processElement(deadLetter(DeadLetterReason.MALFORMED), 0);
            harness.processElement(deadLetter(DeadLetterReason.MALFORMED), 0);
            harness.processElement(deadLetter(DeadLetterReason.FUTURE_TIMESTAMP), 0);

            Map<DeadLetterReason, Long> counted = new HashMap<>();
            for (DeadLetterReason reason : new DeadLetterReason[] {DeadLetterReason.MALFORMED, DeadLetterReason.OVERSIZED,
                DeadLetterReason.FUTURE_TIMESTAMP}) {
                InterceptingOperatorMetricGroup group = Objects.requireNonNull(
                        reasonGroups.get(DeadLetterMetric.REASON_KEY + "=" + reason.headerValue()), "group reason=" + reason.headerValue());
                counted.put(reason, ((Counter) group.get(DeadLetterMetric.NAME)).getCount());
                assertThat(harness.getEnvironment().getAccumulatorRegistry().getUserMap().get(Accounting.deadLetteredAccumulator(reason))
                        .getLocalValue()).as("accumulator of %s", reason).isEqualTo(counted.get(reason));
            }
            assertThat(counted).containsExactlyInAnyOrderEntriesOf(Map.of(
                    DeadLetterReason.MALFORMED, 2L, DeadLetterReason.OVERSIZED, 0L, DeadLetterReason.FUTURE_TIMESTAMP, 1L));
            assertThat(reasonGroups).as("late is the dedup operator's to count").doesNotContainKey("reason=late");
            assertThat(((Counter) metrics.get(Accounting.DEAD_LETTERED)).getCount()).isEqualTo(3);
        }
    }

    private static ParsedRecord deadLetter(DeadLetterReason reason) {
        return ParsedRecord.of(new DeadLetter(RawKafkaRecord.ofValue("impressions", 0, 1, "{".getBytes(StandardCharsets.UTF_8)),
                reason, "test"));
    }
}
