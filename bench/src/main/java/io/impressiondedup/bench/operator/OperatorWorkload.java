package io.impressiondedup.bench.operator;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.identity.RequestIdDigester;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The records an operator benchmark feeds: request ids (random UUIDs), ad ids and event times in
 * order over two days (or as many as asked), 20% of them copies of an impression up to a million records back. Built once,
 * outside the timed loop; the timed loop builds each {@link Impression} (and, for our operator,
 * digests its request id) as the source would.
 */
final class OperatorWorkload {

    static final long START = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli();
    static final int DEFAULT_DAYS = 2;

    final String[] requestIds;
    final String[] adIds;
    final long[] eventTimes;
    final long uniqueImpressions;
    private final RawKafkaRecord raw;
    private final RequestIdDigester digester = new RequestIdDigester();

    final int days;

    OperatorWorkload(int events, long seed) {
        this(events, seed, DEFAULT_DAYS);
    }

    /** {@code events} records in order over {@code days} days of event time. */
    OperatorWorkload(int events, long seed, int days) {
        this.days = days;
        long span = Duration.ofDays(days).toMillis();
        requestIds = new String[events];
        adIds = new String[events];
        eventTimes = new long[events];
        SplittableRandom random = new SplittableRandom(seed);
        long unique = 0;
        for (int i = 0; i < events; i++) {
            eventTimes[i] = START + (long) ((double) i / events * span);
            if (i > 0 && random.nextDouble() < 0.2) {
                int original = i - 1 - random.nextInt(Math.min(i, 1_000_000));
                requestIds[i] = requestIds[original];
                adIds[i] = adIds[original];
            } else {
                requestIds[i] = new UUID((random.nextLong() & ~0xF000L) | 0x4000L, random.nextLong()).toString();
                adIds[i] = "ad-" + random.nextInt(5000);
                unique++;
            }
        }
        uniqueImpressions = unique;
        byte[] value = "{\"requestId\":\"...\",\"adId\":\"...\",\"ts\":0}".getBytes(StandardCharsets.UTF_8);
        raw = new RawKafkaRecord("impressions", 0, 0, START, null, value, null, null);
    }

    /**
     * Unique impressions (first occurrences) whose bucket is still live at {@code watermark}, the
     * benchmark's last (the last event time less 5 minutes).
     */
    long uniqueImpressionsInLiveBuckets(io.impressiondedup.state.time.TimeBuckets buckets, long watermark) {
        java.util.Set<String> seen = new java.util.HashSet<>();
        long live = 0;
        for (int i = 0; i < eventTimes.length; i++) {
            if (seen.add(requestIds[i] + '/' + adIds[i]) && buckets.isLive(buckets.bucketOf(eventTimes[i]), watermark)) {
                live++;
            }
        }
        return live;
    }

    int size() {
        return eventTimes.length;
    }

    /** The impression of event {@code i}, with its request id digested (one MD5), as the job's source builds it. */
    Impression digested(int i) {
        digester.digest(requestIds[i]);
        return new Impression(requestIds[i], adIds[i], eventTimes[i], digester.high(), digester.low(), raw);
    }

    /** The impression of event {@code i} without a digest: what exact dedup needs. */
    Impression plain(int i) {
        return new Impression(requestIds[i], adIds[i], eventTimes[i], 0, 0, raw);
    }
}
