package io.impressiondedup.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/** The Flink SQL peer of the benchmarks keeps the first impression of each (request id, ad id), whole. */
class SqlKeepFirstStageIT {

    @Test
    void firstImpressionOfEachRequestAndAdPassesWithItsRecord() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<Impression> impressions = env.fromData(Impression.TYPE_INFO,
                impression("r1", "a1", 1), impression("r1", "a2", 2), impression("r1", "a1", 3),
                impression("r2", "a1", 4), impression("r1", "a2", 5));

        DataStream<Impression> unique = SqlKeepFirstStage.of(Duration.ofDays(4)).attach(impressions, null).unique();

        List<String> passed = new ArrayList<>();
        try (CloseableIterator<Impression> out = unique.executeAndCollect()) {
            out.forEachRemaining(i -> passed.add(i.requestId() + "/" + i.adId() + "@" + i.eventTime() + ":" + new String(i.raw().value())));
        }
        assertThat(passed).containsExactlyInAnyOrder("r1/a1@1:v1", "r1/a2@2:v2", "r2/a1@4:v4");
    }

    private static Impression impression(String requestId, String adId, long eventTime) {
        return new Impression(requestId, adId, eventTime, 0L, 0L,
                RawKafkaRecord.ofValue("in", 0, eventTime, ("v" + eventTime).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
}
