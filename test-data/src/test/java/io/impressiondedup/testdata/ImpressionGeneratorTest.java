package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.impressiondedup.state.time.TimeBuckets;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ImpressionGeneratorTest {

    static final Instant START = Instant.parse("2026-11-18T00:00:00Z");
    static final long HOUR = Duration.ofHours(1).toMillis();
    static final TimeBuckets BUCKETS = TimeBuckets.defaults();
    static List<GeneratedRecord> records;

    static GeneratorSettings settings(long seed, long count) {
        return GeneratorSettings.builder().seed(seed).count(count).start(START).build();
    }

    static List<GeneratedRecord> generate(GeneratorSettings settings) {
        List<GeneratedRecord> out = new ArrayList<>();
        new ImpressionGenerator(settings).forEachRemaining(out::add);
        return out;
    }

    @BeforeAll
    static void generateOnce() {
        records = generate(settings(7, 200_000));
    }

    @Test
    void theSameSeedGivesTheSameRecordsByteForByte() {
        List<GeneratedRecord> again = generate(settings(7, 200_000));
        List<GeneratedRecord> other = generate(settings(8, 1000));
        for (int i = 0; i < records.size(); i++) {
            assertThat(again.get(i).value).isEqualTo(records.get(i).value);
            assertThat(again.get(i).key).isEqualTo(records.get(i).key);
            assertThat(again.get(i).toString()).isEqualTo(records.get(i).toString());
        }
        assertThat(other.get(0).value).isNotEqualTo(records.get(0).value);
    }

    @Test
    void sharesOfEachClassFollowTheSettings() {
        Map<RecordClass, Integer> counts = new EnumMap<>(RecordClass.class);
        records.forEach(r -> counts.merge(r.recordClass, 1, Integer::sum));
        double n = records.size();
        double copies = counts.get(RecordClass.DUPLICATE_WITHIN_RETENTION) + counts.get(RecordClass.DUPLICATE_BEYOND_RETENTION);
        // Copies due after the end of the stream are never written, so the share falls a little short.
        assertThat(copies / n).isCloseTo(0.19, within(0.015));
        // 2% of copies are scheduled beyond retention + a bucket + 6h; in a 4-day stream only those of
        // originals from the first half day fall inside it.
        assertThat(counts.get(RecordClass.DUPLICATE_BEYOND_RETENTION) / copies).isBetween(0.001, 0.005);
        assertThat(counts.get(RecordClass.LATE) / n).isCloseTo(0.002 * 0.5, within(0.0004));
        assertThat(counts.get(RecordClass.MALFORMED) / n).isCloseTo(0.003, within(0.0006));
        assertThat(counts.get(RecordClass.FUTURE) / n).isCloseTo(0.001, within(0.0004));
    }

    @Test
    void everyCopyWithinRetentionHasAnEarlierUniqueTwinAtMostTheRetentionBefore() {
        Map<String, GeneratedRecord> originals = new HashMap<>();
        int checked = 0;
        int crossingMidnight = 0;
        for (GeneratedRecord r : records) {
            String identity = r.requestId + "/" + r.adId;
            if (r.recordClass == RecordClass.UNIQUE) {
                assertThat(originals.put(identity, r)).as("identity %s unique twice", identity).isNull();
                assertThat(r.group).isEqualTo(r.seq);
            } else if (r.recordClass == RecordClass.DUPLICATE_WITHIN_RETENTION) {
                GeneratedRecord twin = originals.get(identity);
                assertThat(twin).as("twin of %s", r).isNotNull();
                assertThat(twin.seq).isLessThan(r.seq).isEqualTo(r.group);
                assertThat(r.eventTime - twin.eventTime).isBetween(0L, Duration.ofDays(2).toMillis());
                crossingMidnight += BUCKETS.bucketOf(r.eventTime) != BUCKETS.bucketOf(twin.eventTime) ? 1 : 0;
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(30_000);
        assertThat(crossingMidnight).as("copies in the next day bucket").isGreaterThan(500);
    }

    @Test
    void copiesBeyondRetentionComeAfterTheOriginalsBucketHasSurelyExpired() {
        Map<String, GeneratedRecord> originals = new HashMap<>();
        int checked = 0;
        for (GeneratedRecord r : records) {
            String identity = r.requestId + "/" + r.adId;
            if (r.recordClass == RecordClass.UNIQUE) {
                originals.put(identity, r);
            } else if (r.recordClass == RecordClass.DUPLICATE_BEYOND_RETENTION) {
                GeneratedRecord original = originals.get(identity);
                assertThat(r.group).isEqualTo(r.seq);
                // The watermark is at least the copy's time minus the job's 5 min out-of-orderness.
                assertThat(BUCKETS.isLive(BUCKETS.bucketOf(original.eventTime), r.eventTime - 5 * 60_000)).isFalse();
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(50);
    }

    @Test
    void lateRecordsAreLateAndEverythingElseIsNotEvenAtAPessimisticWatermark() {
        long maxEventTime = Long.MIN_VALUE;
        int late = 0;
        for (GeneratedRecord r : records) {
            if (r.recordClass == RecordClass.LATE) {
                // Even a watermark lagging the stream by an hour has passed the point where this record is safe.
                assertThat(BUCKETS.isLate(r.eventTime, maxEventTime - HOUR)).as("%s", r).isTrue();
                late++;
            } else if (!r.recordClass.isDeadLetter()) {
                // The job's watermark trails the highest event time by its out-of-orderness (5 min).
                if (maxEventTime != Long.MIN_VALUE) {
                    assertThat(BUCKETS.isLate(r.eventTime, maxEventTime - 5 * 60_000)).as("%s", r).isFalse();
                }
                maxEventTime = Math.max(maxEventTime, r.eventTime);
            }
        }
        assertThat(late).isGreaterThan(120); // 0.2% of the second half of 200,000
    }

    @Test
    void deadLetterClassesCarryTheReasonTheJobMustGive() {
        int oversized = 0;
        for (GeneratedRecord r : records) {
            switch (r.recordClass) {
                case LATE:
                    assertThat(r.expectedReason).isEqualTo("late");
                    break;
                case FUTURE:
                    assertThat(r.expectedReason).isEqualTo("future-timestamp");
                    assertThat(r.eventTime).isGreaterThanOrEqualTo(ImpressionGenerator.FAR_FUTURE);
                    break;
                case MALFORMED:
                    assertThat(r.expectedReason).isIn("malformed", "oversized");
                    if (r.expectedReason.equals("oversized")) {
                        assertThat(r.value.length).isGreaterThan(100 * 1024);
                        oversized++;
                    }
                    break;
                default:
                    assertThat(r.expectedReason).isNull();
            }
        }
        assertThat(oversized).isPositive();
    }

    @Test
    void impressionsAreValidJsonOfRealisticSizeWithIdsOfEveryKind() throws Exception {
        JsonFactory json = new JsonFactory();
        Set<String> versions = new HashSet<>();
        int iso = 0;
        int multiAdRequests = 0;
        Map<String, Integer> adsPerRequest = new HashMap<>();
        long totalBytes = 0;
        int impressions = 0;
        for (GeneratedRecord r : records) {
            if (r.recordClass != RecordClass.UNIQUE) {
                continue;
            }
            impressions++;
            totalBytes += r.value.length;
            Map<String, String> fields = new HashMap<>();
            try (JsonParser parser = json.createParser(r.value)) {
                assertThat(parser.nextToken()).isEqualTo(JsonToken.START_OBJECT);
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    fields.put(name, parser.getText());
                }
            }
            assertThat(fields).containsEntry("requestId", r.requestId).containsEntry("adId", r.adId).containsKeys("ts", "userAgent", "price");
            if (fields.get("ts").contains("T")) {
                assertThat(Instant.parse(fields.get("ts")).toEpochMilli()).isEqualTo(r.eventTime);
                iso++;
            } else {
                assertThat(Long.parseLong(fields.get("ts"))).isEqualTo(r.eventTime);
            }
            assertThat(new String(r.key, StandardCharsets.UTF_8)).isEqualTo(r.requestId);
            versions.add(r.requestId.length() == 36 ? "v" + r.requestId.charAt(14) : "other");
            if (adsPerRequest.merge(r.requestId, 1, Integer::sum) == 2) {
                multiAdRequests++;
            }
        }
        assertThat(totalBytes / impressions).isBetween(200L, 400L);
        assertThat(versions).containsExactlyInAnyOrder("v4", "v1", "other");
        assertThat((double) iso / impressions).isCloseTo(0.05, within(0.01));
        assertThat(multiAdRequests).isGreaterThan(10_000);
    }
}
