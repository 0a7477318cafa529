package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/** The longest outage the job's settings allow without losing output or dedup state, logged and exported as a gauge. */
class LongestSafeOutageTest {

    static DedupJobConfig config(String... extra) {
        return DedupJobOptionsTest.parse(extra);
    }

    @Test
    void exactlyOnceItIsTheTransactionTimeoutMinusOneCheckpointInterval() {
        LongestSafeOutage outage = LongestSafeOutage.of(config());

        assertThat(outage.millis()).isEqualTo(Duration.ofMinutes(15).minusSeconds(30).toMillis());
        assertThat(outage.logLine()).startsWith("Longest safe outage: 14 min 30 s (--transaction-timeout 15 min minus"
                + " --checkpoint-interval 30 s").contains("raise --transaction-timeout, up to the brokers' transaction.max.timeout.ms")
                .endsWith("Metric: longestSafeOutageMs.");
        assertThat(LongestSafeOutage.of(config("--transaction-timeout", "1h")).millis())
                .isEqualTo(Duration.ofHours(1).minusSeconds(30).toMillis());
    }

    @Test
    void aStateTtlShorterThanTheTransactionTimeoutIsTheBound() {
        LongestSafeOutage outage = LongestSafeOutage.of(config("--bucket-size", "1min", "--retention", "1min", "--allowed-lateness", "0s",
                "--state-ttl", "5min"));

        assertThat(outage.millis()).isEqualTo(Duration.ofMinutes(5).toMillis());
        assertThat(outage.logLine()).startsWith("Longest safe outage: 5 min (--state-ttl:");
    }

    @Test
    void atLeastOnceOnlyTheStateTtlBoundsIt() {
        assertThat(LongestSafeOutage.of(config("--delivery", "at-least-once")).logLine()).startsWith("Longest safe outage: 11 d (--state-ttl");
        LongestSafeOutage unbounded = LongestSafeOutage.of(config("--delivery", "at-least-once", "--state-ttl", "0s"));
        assertThat(unbounded.millis()).isEqualTo(Long.MAX_VALUE);
        assertThat(unbounded.logLine()).startsWith("Longest safe outage: unbounded");
    }

    @Test
    void theRouteOperatorExportsItAsAGauge() throws Exception {
        InterceptingOperatorMetricGroup metrics = new InterceptingOperatorMetricGroup();
        UnregisteredMetricGroups.UnregisteredTaskMetricGroup taskGroup = new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
            @Override
            public InternalOperatorMetricGroup getOrAddOperator(OperatorID id, String name, Map<String, String> additional) {
                return metrics;
            }
        };
        LongestSafeOutage outage = LongestSafeOutage.of(config("--transaction-timeout", "20min", "--checkpoint-interval", "1min"));
        try (OneInputStreamOperatorTestHarness<ParsedRecord, Impression> harness = new OneInputStreamOperatorTestHarness<>(
                new ProcessOperator<>(new RouteParsedRecords(outage)), new MockEnvironmentBuilder().setMetricGroup(taskGroup).build())) {
            harness.open();

            assertThat(((Gauge<?>) metrics.get(LongestSafeOutage.METRIC)).getValue()).isEqualTo(Duration.ofMinutes(19).toMillis());
        }
    }
}
