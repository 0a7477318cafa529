package io.impressiondedup.testdata.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StatsTopicCheckTest {

    private static final String HOUR_0 = "impressions/0/2026-11-23T10:00:00Z";
    private static final String HOUR_1 = "impressions/0/2026-11-23T11:00:00Z";

    /** A row as the job writes it: counts [input, unique, duplicates, late, deadLettered]. */
    private static Map.Entry<String, byte[]> row(String key, String kind, long closedAt, long... counts) {
        String json = String.format("{\"kind\":\"%s\",\"closedAtMillis\":%d,\"input\":%d,\"unique\":%d,\"duplicates\":%d,\"late\":%d,"
                + "\"deadLettered\":%d}", kind, closedAt, counts[0], counts[1], counts[2], counts[3], counts[4]);
        return Map.entry(key, json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aCompleteRowAndItsAmendmentsSummingToTheVerifiersCountsHold() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {10, 6, 2, 1, 1}, HOUR_1, new long[] {3, 3, 0, 0, 0}), List.of(
                row(HOUR_0, "complete", 1000, 7, 5, 2, 0, 0),
                row(HOUR_1, "complete", 2000, 3, 3, 0, 0, 0),
                row(HOUR_0, "amendment", 5000, 3, 1, 0, 1, 1)));

        assertThat(check.problems()).isEmpty();
        assertThat(check.completeRows()).isEqualTo(2);
        assertThat(check.amendmentRows()).isEqualTo(1);
        assertThat(check.summary()).contains("2 complete and 1 amendment rows over 2 (partition, hour) keys", "equal the verifier's");
    }

    @Test
    void rowsThatSumToOtherCountsThanTheVerifiersAreNamedByKey() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {10, 6, 2, 1, 1}),
                List.of(row(HOUR_0, "complete", 1000, 9, 6, 2, 1, 0)));

        assertThat(check.problems()).containsExactly(HOUR_0 + ": rows count 9 input records, the input topic holds 10 of that hour",
                HOUR_0 + ": rows sum to {input=9, unique=6, duplicates=2, late=1, deadLettered=0},"
                + " the verifier counts {input=10, unique=6, duplicates=2, late=1, deadLettered=1}");
    }

    /**
     * A row that balances and whose outcomes are the verifier's, but that counts a record the input topic does not hold
     * in that hour (e.g. counted in the hour of its Kafka timestamp rather than of its event time): only the input topic
     * shows it, not the row's own fields.
     */
    @Test
    void rowsWhoseInputIsNotEveryRecordOfTheirHourInTheInputTopicAreAProblemEvenIfTheyBalance() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {9, 6, 2, 1, 0}, HOUR_1, new long[] {1, 1, 0, 0, 0}),
                List.of(row(HOUR_0, "complete", 1000, 10, 7, 2, 1, 0), row(HOUR_1, "complete", 2000, 0, 0, 0, 0, 0)));

        assertThat(check.problems()).contains(HOUR_0 + ": rows count 10 input records, the input topic holds 9 of that hour",
                HOUR_1 + ": rows count 0 input records, the input topic holds 1 of that hour");
    }

    @Test
    void anHourTheVerifierCountsButNoRowHoldsIsAProblem() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {1, 1, 0, 0, 0}), List.of());

        assertThat(check.problems()).hasSize(2).contains(HOUR_0 + ": rows count 0 input records, the input topic holds 1 of that hour")
                .anySatisfy(problem -> assertThat(problem).startsWith(HOUR_0 + ": rows sum to {input=0"));
    }

    @Test
    void aRowWrittenTwiceIsAProblemEvenIfTheVerifiersCountsWereDoubled() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {4, 4, 0, 0, 0}), List.of(
                row(HOUR_0, "amendment", 3000, 2, 2, 0, 0, 0),
                row(HOUR_0, "amendment", 3000, 2, 2, 0, 0, 0)));

        assertThat(check.problems()).containsExactly("row written 2 times: " + HOUR_0 + " closed at 3000");
    }

    @Test
    void twoCompleteRowsForOneHourAreAProblem() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {4, 4, 0, 0, 0}), List.of(
                row(HOUR_0, "complete", 3000, 2, 2, 0, 0, 0),
                row(HOUR_0, "complete", 4000, 2, 2, 0, 0, 0)));

        assertThat(check.problems()).containsExactly("2 complete rows for " + HOUR_0);
    }

    @Test
    void aRowWhoseInputIsNotTheSumOfItsOutcomesIsAProblem() {
        StatsTopicCheck check = StatsTopicCheck.of(Map.of(HOUR_0, new long[] {5, 4, 0, 0, 0}),
                List.of(row(HOUR_0, "complete", 3000, 5, 4, 0, 0, 0)));

        assertThat(check.problems()).singleElement().asString().startsWith("row does not balance: ");
    }
}
