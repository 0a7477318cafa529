package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.job.config.ConsumerDefaults;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The output sink's histogram of the delay from an impression's Kafka timestamp to its write. */
class OutputWriteDelayTest {

    /** Keeps the first histogram of a name, as Flink's metric groups do (a second is refused: "name collision"). */
    final Map<String, Histogram> registered = new HashMap<>();
    final MetricGroup metrics = new UnregisteredMetricsGroup() {
        @Override
        public <H extends Histogram> H histogram(String name, H histogram) {
            registered.putIfAbsent(name, histogram);
            return histogram;
        }
    };
    final KafkaRecords.Unchanged serializer = new KafkaRecords.Unchanged("deduplicated");

    @BeforeEach
    void open() {
        openSerializer();
    }

    void openSerializer() {
        serializer.open(new SerializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return metrics;
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
            }
        }, null);
    }

    static Impression stampedAt(long timestamp) {
        RawKafkaRecord raw = new RawKafkaRecord("impressions", 0, 7, timestamp, null, "{}".getBytes(StandardCharsets.UTF_8), null, null);
        return new Impression("r", "a", 1_700_000_000_000L, 1, 2, raw);
    }

    Histogram histogram() {
        return registered.get(OutputWriteDelay.METRIC);
    }

    @Test
    void eachWrittenImpressionAddsTheTimeSinceItsKafkaTimestampInMilliseconds() {
        long now = System.currentTimeMillis();
        serializer.serialize(stampedAt(now - 5_000), null, null);
        serializer.serialize(stampedAt(now - 2_000), null, null);

        assertThat(histogram().getCount()).isEqualTo(2);
        // At least the age the records had when written; the upper bound only allows for a slow machine.
        assertThat(histogram().getStatistics().getMin()).isBetween(2_000L, 2_000L + 60_000L);
        assertThat(histogram().getStatistics().getMax()).isBetween(5_000L, 5_000L + 60_000L);
    }

    @Test
    void openedAgainAsTheExactlyOnceWriterDoesTheReportedHistogramIsTheOneUpdated() {
        openSerializer();
        serializer.serialize(stampedAt(System.currentTimeMillis() - 1_000), null, null);

        assertThat(histogram().getCount()).isEqualTo(1);
    }

    @Test
    void anImpressionWithoutATimestampIsWrittenWithoutOneAndNotMeasured() {
        ProducerRecord<byte[], byte[]> written = serializer.serialize(stampedAt(-1), null, null);

        assertThat(written.timestamp()).isNull();
        assertThat(histogram().getCount()).isZero();
    }

    @Test
    void theHistogramsSampleArrayIsNoHumongousObjectOnATaskManagersDefaultHeap() {
        long ringBufferBytes = 16L + (long) OutputWriteDelay.WINDOW * Double.BYTES; // a double[]: header and samples
        assertThat(ringBufferBytes).isLessThan(ConsumerDefaults.SMALLEST_HUMONGOUS_BYTES);
    }
}
