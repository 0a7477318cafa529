package io.impressiondedup.testdata.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.TestDataCommand;

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
            } else if (r.recordClass == RecordClass.DUPLICATE_WITHIN_RETENTION && r.group == originals.get(identity).seq) {
                GeneratedRecord twin = originals.get(identity);
                assertThat(twin.seq).isLessThan(r.seq);
                assertThat(r.eventTime - twin.eventTime).isBetween(0L, Duration.ofDays(2).toMillis());
                crossingMidnight += BUCKETS.bucketOf(r.eventTime) != BUCKETS.bucketOf(twin.eventTime) ? 1 : 0;
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(30_000);
        assertThat(crossingMidnight).as("copies in the next day bucket").isGreaterThan(500);
        assertThat(groupsCheckedAsTheJobWould(records, BUCKETS)).isGreaterThan(30_000);
    }

    /**
     * The ground truth is exact when the job cannot but follow it. Only a group's first record is
     * inserted into a filter; the others are dropped as its copies. So: every other record of a group
     * comes after its first and within the retention of it (the job surely finds it); and the first
     * records of two groups of one identity are so far apart that the later one's range of buckets
     * misses the earlier one's bucket (the job surely passes it as new).
     */
    @Test
    void copiesBeyondTheRetentionOfOneImpressionAreOneGroupTheJobFindsThemIn() {
        Duration retention = Duration.ofHours(2);
        TimeBuckets hourly = new TimeBuckets(Duration.ofHours(1), retention, Duration.ofHours(4), java.time.ZoneOffset.UTC);
        List<GeneratedRecord> stream = generate(GeneratorSettings.builder().seed(15).count(100_000).start(START).span(Duration.ofDays(5))
                .duplicateShare(0.4).beyondRetentionShare(0.5).bucketSize(Duration.ofHours(1)).retention(retention)
                .allowedLateness(Duration.ofHours(4)).delayedShare(0.05).delayMin(Duration.ofHours(1)).delayMax(Duration.ofHours(3)).build());
        Map<String, Integer> beyondByIdentity = new HashMap<>();
        stream.stream().filter(r -> r.recordClass == RecordClass.DUPLICATE_BEYOND_RETENTION)
                .forEach(r -> beyondByIdentity.merge(r.requestId + "/" + r.adId, 1, Integer::sum));
        long copiesOfCopiesBeyond = stream.stream().filter(r -> r.recordClass == RecordClass.DUPLICATE_WITHIN_RETENTION)
                .filter(r -> stream.get((int) r.group).recordClass == RecordClass.DUPLICATE_BEYOND_RETENTION).count();

        assertThat(groupsCheckedAsTheJobWould(stream, hourly)).isGreaterThan(50_000);
        assertThat(copiesOfCopiesBeyond).as("copies of a copy beyond the retention").isGreaterThan(500);
        assertThat(beyondByIdentity.values()).as("groups opened by copies beyond the retention, per identity").allMatch(n -> n == 1);
    }

    /** Checks every group of the stream as the class comment of the test above says; returns the records checked. */
    static int groupsCheckedAsTheJobWould(List<GeneratedRecord> stream, TimeBuckets buckets) {
        Map<Long, GeneratedRecord> firsts = new HashMap<>();
        Map<String, List<GeneratedRecord>> firstsByIdentity = new HashMap<>();
        long margin = buckets.retention().toMillis() - Duration.ofMinutes(1).toMillis();
        int checked = 0;
        for (GeneratedRecord r : stream) {
            if (r.recordClass.isDeadLetter()) {
                continue;
            }
            String identity = r.requestId + "/" + r.adId;
            if (r.recordClass.opensGroup()) {
                assertThat(r.group).isEqualTo(r.seq);
                for (GeneratedRecord earlier : firstsByIdentity.getOrDefault(identity, List.of())) {
                    assertThat(buckets.bucketOf(earlier.eventTime)).as("%s passes as new after %s", r, earlier)
                            .isLessThan(buckets.firstBucketToCheck(r.eventTime));
                }
                firsts.put(r.seq, r);
                firstsByIdentity.computeIfAbsent(identity, i -> new ArrayList<>()).add(r);
            } else {
                GeneratedRecord first = firsts.get(r.group);
                assertThat(first).as("the first record of the group of %s, written before it", r).isNotNull();
                assertThat(first.requestId + "/" + first.adId).isEqualTo(identity);
                assertThat(Math.abs(r.eventTime - first.eventTime)).as("%s is a copy of %s", r, first).isLessThanOrEqualTo(margin);
            }
            checked++;
        }
        return checked;
    }

    @Test
    void copiesBeyondRetentionAreBeyondTheRangeTheyAreCheckedAgainst() {
        assertThat(copiesBeyondRetentionChecked(records)).isGreaterThan(50);
    }

    /** Each copy beyond the retention meets neither its original nor any other record of its identity. */
    static int copiesBeyondRetentionChecked(List<GeneratedRecord> stream) {
        Map<String, List<GeneratedRecord>> earlier = new HashMap<>();
        int checked = 0;
        for (GeneratedRecord r : stream) {
            if (r.recordClass.isDeadLetter()) {
                continue;
            }
            String identity = r.requestId + "/" + r.adId;
            List<GeneratedRecord> same = earlier.computeIfAbsent(identity, i -> new ArrayList<>());
            if (r.recordClass == RecordClass.DUPLICATE_BEYOND_RETENTION) {
                assertThat(r.group).isEqualTo(r.seq);
                GeneratedRecord original = same.get(0);
                assertThat(original.recordClass).isEqualTo(RecordClass.UNIQUE);
                // The job checks a record against the buckets [bucketOf(t - R), bucketOf(t + R)]; duplicates are
                // not inserted, so only the original is in a filter, and its bucket is older than that range.
                assertThat(BUCKETS.bucketOf(original.eventTime)).as("%s", r).isLessThan(BUCKETS.firstBucketToCheck(r.eventTime));
                checked++;
            }
            same.add(r);
        }
        return checked;
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

    // ---- delayed clients ----

    static final long MINUTE = 60_000;
    static final long DAY = Duration.ofDays(1).toMillis();

    static GeneratorSettings delayedSettings(long seed, long count) {
        return GeneratorSettings.builder().seed(seed).count(count).start(START).delayedShare(0.05).build();
    }

    @Test
    void delayedImpressionsAreUniqueWrittenHoursLaterAndSurelyInTime() {
        List<GeneratedRecord> stream = generate(delayedSettings(11, 200_000));
        long maxEventTime = Long.MIN_VALUE;
        int delayed = 0;
        long longestLag = 0;
        int uniques = 0;
        for (GeneratedRecord r : stream) {
            if (r.recordClass.isDeadLetter()) {
                continue;
            }
            if (maxEventTime != Long.MIN_VALUE) {
                long lag = maxEventTime - r.eventTime;
                // In time with margin: the watermark trails the highest event time by 5 min and a record up
                // to the allowed lateness (1 day) behind it is in time; nothing comes within 20 minutes of that.
                assertThat(lag).as("%s", r).isLessThan(DAY - 20 * MINUTE);
                assertThat(BUCKETS.isLate(r.eventTime, maxEventTime - 5 * MINUTE)).as("%s", r).isFalse();
                if (r.recordClass == RecordClass.UNIQUE) {
                    uniques++;
                    if (lag > 2 * MINUTE) {
                        // Only a delayed client's impression is more than the jitter behind: by 1h to 20h.
                        assertThat(lag).as("%s", r).isBetween(HOUR - MINUTE, 20 * HOUR + MINUTE);
                        delayed++;
                        longestLag = Math.max(longestLag, lag);
                    }
                }
            }
            maxEventTime = Math.max(maxEventTime, r.eventTime);
        }
        // 5% of requests, less those still queued when the stream ends (up to 20 h of 4 days).
        assertThat((double) delayed / uniques).isBetween(0.035, 0.06);
        assertThat(longestLag).isGreaterThan(19 * HOUR);
    }

    @Test
    void copiesOfDelayedImpressionsComeAfterThemSomeWithTheOriginalTimestamp() {
        List<GeneratedRecord> stream = generate(delayedSettings(12, 200_000));
        Map<String, GeneratedRecord> originals = new HashMap<>();
        long maxEventTime = Long.MIN_VALUE;
        Set<Long> delayedOriginals = new HashSet<>();
        int retried = 0;
        int laterTimestamp = 0;
        int crossingMidnight = 0;
        for (GeneratedRecord r : stream) {
            String identity = r.requestId + "/" + r.adId;
            if (r.recordClass == RecordClass.UNIQUE) {
                assertThat(originals.put(identity, r)).as("identity %s unique twice", identity).isNull();
                assertThat(r.group).isEqualTo(r.seq);
                if (maxEventTime - r.eventTime > HOUR - MINUTE) {
                    delayedOriginals.add(r.seq);
                }
            } else if (r.recordClass == RecordClass.DUPLICATE_WITHIN_RETENTION && r.group == originals.get(identity).seq) {
                GeneratedRecord twin = originals.get(identity);
                assertThat(twin.seq).isLessThan(r.seq);
                assertThat(r.eventTime - twin.eventTime).isBetween(0L, Duration.ofDays(2).toMillis() - MINUTE);
                if (delayedOriginals.contains(twin.seq)) {
                    if (r.eventTime == twin.eventTime) {
                        retried++;
                    } else {
                        laterTimestamp++;
                    }
                    crossingMidnight += BUCKETS.bucketOf(r.eventTime) != BUCKETS.bucketOf(twin.eventTime) ? 1 : 0;
                }
            }
            if (!r.recordClass.isDeadLetter()) {
                maxEventTime = Math.max(maxEventTime, r.eventTime);
            }
        }
        assertThat(retried).as("copies re-sent with the original timestamp").isGreaterThan(100);
        assertThat(laterTimestamp).as("copies with a later timestamp").isGreaterThan(100);
        assertThat(crossingMidnight).as("copies of delayed impressions in another day bucket").isPositive();
        assertThat(copiesBeyondRetentionChecked(stream)).isGreaterThan(50);
        assertThat(groupsCheckedAsTheJobWould(stream, BUCKETS)).isGreaterThan(100_000);
    }

    @Test
    void withDelayedClientsTheSharesStillFollowTheSettings() {
        List<GeneratedRecord> stream = generate(delayedSettings(13, 200_000));
        Map<RecordClass, Integer> counts = new EnumMap<>(RecordClass.class);
        stream.forEach(r -> counts.merge(r.recordClass, 1, Integer::sum));
        double n = stream.size();
        double copies = counts.get(RecordClass.DUPLICATE_WITHIN_RETENTION) + counts.get(RecordClass.DUPLICATE_BEYOND_RETENTION);
        assertThat(copies / n).isCloseTo(0.19, within(0.015));
        assertThat(counts.get(RecordClass.MALFORMED) / n).isCloseTo(0.003, within(0.0006));
    }

    @Test
    void lateRecordsStayLateBeyondALongAllowedLateness() {
        long allowedLateness = Duration.ofDays(3).toMillis();
        List<GeneratedRecord> stream = generate(GeneratorSettings.builder().seed(14).count(100_000).start(START).span(Duration.ofDays(8))
                .allowedLateness(Duration.ofMillis(allowedLateness)).delayedShare(0.02).build());
        TimeBuckets buckets = BUCKETS.withAllowedLateness(Duration.ofMillis(allowedLateness));
        long maxEventTime = Long.MIN_VALUE;
        int late = 0;
        for (GeneratedRecord r : stream) {
            if (r.recordClass == RecordClass.LATE) {
                // max(R + 2B, L + B + 6h) = 4d6h behind the clock; the highest event time trails the clock by the jitter at most.
                assertThat(maxEventTime - r.eventTime).as("%s", r).isGreaterThan(allowedLateness + DAY + 6 * HOUR - MINUTE);
                assertThat(buckets.isLate(r.eventTime, maxEventTime - HOUR)).isTrue();
                late++;
            } else if (!r.recordClass.isDeadLetter()) {
                maxEventTime = Math.max(maxEventTime, r.eventTime);
            }
        }
        assertThat(late).isGreaterThan(50);
    }

    @Test
    void aDelayBeyondTheAllowedLatenessLessTheMarginIsRefusedNamingTheOption() {
        GeneratorSettings.Builder tooLong = GeneratorSettings.builder().delayedShare(0.01).delayMax(Duration.ofHours(23).plusMinutes(1));
        assertThatThrownBy(tooLong::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--delay-max")
                .hasMessageContaining("--allowed-lateness");
        // At the limit it is fine; without delayed clients the delays do not matter.
        GeneratorSettings.builder().delayedShare(0.01).delayMax(Duration.ofHours(23)).build();
        GeneratorSettings.builder().allowedLateness(Duration.ZERO).build();
        assertThatThrownBy(GeneratorSettings.builder().delayedShare(0.01).delayMin(Duration.ofHours(21))::build)
                .hasMessageContaining("--delay-min");

        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int exit = TestDataCommand.run(new String[] {"generate", "--delayed-share", "0.01", "--allowed-lateness", "12h",
                "--output", "unused.jsonl", "--truth", "unused.csv"}, System.out, new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--delay-max");
    }
}
