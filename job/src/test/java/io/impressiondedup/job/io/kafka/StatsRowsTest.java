package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.stats.StatsCounts;
import io.impressiondedup.operators.stats.StatsKey;
import io.impressiondedup.operators.stats.StatsOutcome;
import io.impressiondedup.operators.stats.StatsRow;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The stats topic's rows are a contract (docs/RECONCILIATION.md): key and JSON field names, pinned here. */
class StatsRowsTest {

    @Test
    void aRowIsKeyedByTopicPartitionAndHourAndCarriesEveryCountUnderItsContractName() {
        long hour = Instant.parse("2026-11-23T10:00:00Z").toEpochMilli();
        StatsCounts counts = new StatsCounts();
        counts.add(StatsOutcome.UNIQUE);
        counts.add(StatsOutcome.UNIQUE);
        counts.add(StatsOutcome.DUPLICATE);
        counts.add(StatsOutcome.LATE);
        counts.addDeadLetter(DeadLetterReason.MALFORMED);
        StatsRow row = new StatsRow(new StatsKey("impressions", 3, hour, hour + 7_200_000L), counts, false);

        ProducerRecord<byte[], byte[]> record = new StatsRows("stats").serialize(row, null, null);

        assertThat(record.topic()).isEqualTo("stats");
        assertThat(record.timestamp()).isNull();
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("impressions/3/2026-11-23T10:00:00Z");
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("{\"topic\":\"impressions\",\"partition\":3,"
                + "\"hour\":\"2026-11-23T10:00:00Z\",\"hourStartMillis\":" + hour + ",\"closedAtMillis\":" + (hour + 7_200_000L)
                + ",\"kind\":\"amendment\",\"input\":5,\"unique\":2,\"duplicates\":1,\"late\":1,\"deadLettered\":1,"
                + "\"deadLetteredByReason\":{\"malformed\":1,\"oversized\":0,\"future-timestamp\":0,\"schema-unknown\":0}}");
    }
}
