package io.impressiondedup.operators.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.dedup.ExactDedupReference.Verdict;
import io.impressiondedup.operators.model.Impression;
import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Savepoints written by earlier releases restore, and the operator then decides exactly as the exact
 * reference does over the whole stream ({@link GoldenStream}). One fixture per released state format
 * and backend, in {@code src/test/resources/golden/}; never rewrite one: add a new version instead.
 *
 * <p>{@code v1}: the state format of the first release (bucket directory + page groups, expiry timers
 * at bucket end + retention), written before allowed lateness existed.
 */
class GoldenSavepointTest {

    private static final Path FIXTURES = Paths.get("src/test/resources/golden");

    static String fixture(String version, Backend backend) {
        return FIXTURES.resolve("dedup-operator-" + version + "-" + backend.name().toLowerCase() + ".savepoint").toString();
    }

    @ParameterizedTest
    @EnumSource(Backend.class)
    void theV1SavepointRestoresAndDecidesAsTheExactReference(Backend backend) throws Exception {
        OperatorSubtaskState savepoint = OperatorSnapshotUtil.readStateHandle(fixture("v1", backend));
        Map<Verdict, List<String>> expected = referenceAfterTheCut();
        assertThat(expected.get(Verdict.UNIQUE)).hasSizeGreaterThan(500);
        assertThat(expected.get(Verdict.DUPLICATE)).hasSizeGreaterThan(300);
        // Genuine impressions of day 0 delayed by hours are in time now (v1 dead-lettered them), and copies
        // re-sent after the watermark passed day 0 + retention are late duplicates, not late.
        assertThat(expected.get(Verdict.LATE_DUPLICATE)).hasSizeGreaterThan(50);

        try (DedupHarness h = DedupHarness.open(GoldenStream.settings(), backend, 1, 0, savepoint)) {
            feed(h, GoldenStream.AFTER);
            assertThat(sorted(h.emittedRequestIdsWithTime())).isEqualTo(expected.get(Verdict.UNIQUE));
            List<String> duplicates = new ArrayList<>(expected.get(Verdict.DUPLICATE));
            duplicates.addAll(expected.get(Verdict.LATE_DUPLICATE));
            assertThat(sorted(ids(h.duplicates()))).isEqualTo(sorted(duplicates));
            assertThat(sorted(ids(h.late().stream().map(DedupHarness::impressionOf).toList()))).isEqualTo(expected.get(Verdict.LATE));
            assertThat(h.counter(DedupMetrics.LATE_DUPLICATES)).isEqualTo(expected.get(Verdict.LATE_DUPLICATE).size());
            // The v1 timers of day 0 (end + retention) fired before the current rule allows, and were moved.
            assertThat(h.counter(DedupMetrics.BUCKET_EXPIRIES_DEFERRED)).isEqualTo(DedupHarness.MAX_PARALLELISM);
        }
    }

    /** Writes the fixtures of the current release: {@code mvn -pl operators test -Dtest=GoldenSavepointTest -Dgolden.write=v1}. */
    @Test
    @EnabledIfSystemProperty(named = "golden.write", matches = "v\\d+")
    void writeFixtures() throws Exception {
        String version = System.getProperty("golden.write");
        for (Backend backend : Backend.values()) {
            File file = new File(fixture(version, backend));
            assertThat(file).as("fixtures are never rewritten: add a new version").doesNotExist();
            try (DedupHarness h = DedupHarness.open(GoldenStream.settings(), backend)) {
                feed(h, GoldenStream.BEFORE);
                h.harness.prepareSnapshotPreBarrier(1);
                OperatorSubtaskState savepoint = h.harness
                        .snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
                        .getJobManagerOwnedState();
                OperatorSnapshotUtil.writeStateHandle(savepoint, file.getPath());
            }
        }
    }

    /** What the exact reference decides for the events after the cut, having seen those before it. */
    static Map<Verdict, List<String>> referenceAfterTheCut() {
        ExactDedupReference reference = new ExactDedupReference(GoldenStream.settings());
        for (Object event : GoldenStream.BEFORE) {
            if (event instanceof Impression) {
                reference.offer((Impression) event);
            } else {
                reference.watermark((Long) event);
            }
        }
        Map<Verdict, List<String>> after = new EnumMap<>(Verdict.class);
        for (Verdict verdict : Verdict.values()) {
            after.put(verdict, new ArrayList<>());
        }
        for (Object event : GoldenStream.AFTER) {
            if (event instanceof Impression) {
                Impression impression = (Impression) event;
                after.get(reference.offer(impression)).add(id(impression));
            } else {
                reference.watermark((Long) event);
            }
        }
        after.replaceAll((verdict, ids) -> sorted(ids));
        return after;
    }

    private static void feed(DedupHarness h, List<Object> events) throws Exception {
        for (Object event : events) {
            if (event instanceof Impression) {
                h.process((Impression) event);
            } else {
                h.watermark((Long) event);
            }
        }
    }

    private static String id(Impression i) {
        return i.requestId() + "/" + i.adId() + "@" + i.eventTime();
    }

    private static List<String> ids(List<Impression> impressions) {
        return impressions.stream().map(GoldenSavepointTest::id).toList();
    }

    private static List<String> sorted(List<String> values) {
        List<String> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }
}
