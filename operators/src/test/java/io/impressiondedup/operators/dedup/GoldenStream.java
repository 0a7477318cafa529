package io.impressiondedup.operators.dedup;

import static io.impressiondedup.operators.dedup.TestImpressions.DAY;
import static io.impressiondedup.operators.dedup.TestImpressions.HOUR;
import static io.impressiondedup.operators.dedup.TestImpressions.T0;
import static io.impressiondedup.operators.dedup.TestImpressions.impression;

import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.identity.FingerprintSecret;
import io.impressiondedup.state.plan.DedupPlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The input behind the golden savepoints ({@code src/test/resources/golden/}): a stream cut in two,
 * {@link #BEFORE} (fed into the operator of the release that wrote the savepoint) and {@link #AFTER}
 * (fed after restoring it). Events are {@link Impression}s and watermarks ({@code Long}).
 *
 * <p><b>Frozen.</b> The savepoints were written from exactly this stream and these settings; changing
 * either makes the fixtures meaningless. Add a new stream for a new fixture instead.
 *
 * <p>Before the cut: about 2,000 impressions from noon of day 0 to 08:00 of day 1 (two day buckets,
 * disorder of up to 30 minutes, copies inside the half), watermarks 30 minutes behind; the snapshot
 * holds both buckets' filters and their pending event-time and processing-time timers. After the cut:
 * copies of earlier impressions re-sent with their original timestamps and with new ones, new
 * requests of day 1 and day 2 with their copies, genuine impressions of day 0 delayed by up to 14
 * hours, and finally a watermark past the end of day 0 + 2 days of retention followed by copies of
 * day-0 and day-1 impressions with their original timestamps.
 *
 * <p>From {@code v2} on the fixtures are written with a fingerprint secret ({@link #SECRET}): the same
 * events, their digests keyed by it ({@link #keyed}), and settings carrying its check value.
 */
final class GoldenStream {

    static final List<Object> BEFORE = new ArrayList<>();
    static final List<Object> AFTER = new ArrayList<>();

    /** The fingerprint secret of the fixtures from {@code v2} on. */
    static final FingerprintSecret SECRET = FingerprintSecret.of("golden-savepoint-v2-secret-0123456789".getBytes(StandardCharsets.US_ASCII));

    /** The settings the fixtures were written with (explicit: later defaults must not change them). */
    static DedupSettings settings() {
        return settings(FingerprintSecret.NO_SECRET);
    }

    /** {@link #settings()} for the source's fingerprint secret of check value {@code fingerprintCheck}. */
    static DedupSettings settings(long fingerprintCheck) {
        return settings(fingerprintCheck, KEY, false);
    }

    /** The dedup key of the fixtures from {@code v3} on (the default identity, written out: defaults may change). */
    static final String KEY = "/requestId;/adId";

    /** {@link #settings(long)} under the dedup key {@code dedupKey}, a restore under another key allowed or not. */
    static DedupSettings settings(long fingerprintCheck, String dedupKey, boolean allowDedupKeyChange) {
        return settings(fingerprintCheck, dedupKey, allowDedupKeyChange, StateFormat.BLOOM);
    }

    /** {@link #settings(long)} with new buckets in {@code format}: the fixtures from {@code v5} on are in the fingerprint format. */
    static DedupSettings settings(long fingerprintCheck, StateFormat format) {
        return settings(fingerprintCheck, KEY, false, format);
    }

    /** {@link #settings(long, StateFormat)} with {@code shards} shards: the fixtures from {@code v6} on are reshaped to 64. */
    static DedupSettings settings(long fingerprintCheck, StateFormat format, int shards) {
        DedupSettings settings = settings(fingerprintCheck, format);
        DedupPlan plan = settings.plan();
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(plan.capacityPerBucket()).shards(shards).fpp(plan.fpp()).pageBytes(plan.pageBytes())
                        .fingerprintScheme(plan.fingerprintScheme()).stateFormat(format).build())
                .emitDuplicates(true)
                .fingerprintCheck(fingerprintCheck)
                .dedupKey(KEY)
                .build();
    }

    private static DedupSettings settings(long fingerprintCheck, String dedupKey, boolean allowDedupKeyChange, StateFormat format) {
        // With a secret the job creates filters that hash ad ids with its key; the v2 and v3 fixtures predate that, so
        // restoring them is the upgrade: their filters stay unkeyed, buckets created after the restore are keyed.
        FingerprintScheme scheme = FingerprintScheme.withKeyBits(FingerprintScheme.DEFAULT_KEY_BITS)
                .withAdIdsKeyed(fingerprintCheck != FingerprintSecret.NO_SECRET);
        return DedupSettings.builder()
                .plan(DedupPlan.builder().capacityPerBucket(100_000).shards(DedupHarness.MAX_PARALLELISM).fpp(0.001).pageBytes(2048)
                        .fingerprintScheme(scheme).stateFormat(format).build())
                .emitDuplicates(true)
                .fingerprintCheck(fingerprintCheck)
                .dedupKey(dedupKey)
                .allowDedupKeyChange(allowDedupKeyChange)
                .build();
    }

    /** {@code events} as a source with {@code secret} digests them; {@code null}: as they are. */
    static List<Object> keyed(List<Object> events, FingerprintSecret secret) {
        return secret == null ? events : TestImpressions.keyedBy(secret, events);
    }

    static {
        SplittableRandom random = new SplittableRandom(20261123);
        List<Impression> seen = new ArrayList<>();
        long clock = T0 + 12 * HOUR;
        for (int i = 0; i < 2000; i++) {
            clock += 36_000L; // 2,000 x 36 s = 20 h: noon of day 0 to 08:00 of day 1
            Impression next;
            if (!seen.isEmpty() && random.nextInt(10) == 0) {
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), original.adId(), original.eventTime() + random.nextLong(2 * HOUR));
            } else {
                next = impression("g-" + random.nextInt(1_000_000), "ad-" + random.nextInt(3), clock - random.nextLong(30 * 60_000L));
                seen.add(next);
            }
            BEFORE.add(next);
            if (i % 50 == 49) {
                BEFORE.add(clock - 30 * 60_000L);
            }
        }
        long cut = clock; // 08:00 of day 1

        List<Impression> seenAfter = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            clock += 36_000L; // to 04:00 of day 2
            int kind = random.nextInt(20);
            Impression next;
            if (kind < 4) { // a copy re-sent with its original timestamp
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), original.adId(), original.eventTime());
            } else if (kind < 6) { // a copy re-sent with a new timestamp
                Impression original = seen.get(random.nextInt(seen.size()));
                next = impression(original.requestId(), original.adId(), clock);
            } else if (kind < 8 && !seenAfter.isEmpty()) { // a copy of an impression first seen after the cut
                Impression original = seenAfter.get(random.nextInt(seenAfter.size()));
                next = impression(original.requestId(), original.adId(), original.eventTime() + random.nextLong(HOUR));
            } else if (kind < 10 && clock < cut + 6 * HOUR) { // a genuine impression of day 0, delayed by hours
                next = impression("d-" + random.nextInt(1_000_000), "ad-" + random.nextInt(3), T0 + 18 * HOUR + random.nextLong(6 * HOUR));
                seenAfter.add(next);
            } else {
                next = impression("n-" + random.nextInt(1_000_000), "ad-" + random.nextInt(3), clock - random.nextLong(30 * 60_000L));
                seenAfter.add(next);
            }
            AFTER.add(next);
            if (i % 50 == 49) {
                AFTER.add(clock - 30 * 60_000L);
            }
        }
        // Past the end of day 0 + retention: the expiry timer of day 0 set by the writing release fires.
        AFTER.add(T0 + 3 * DAY + HOUR);
        for (int i = 0; i < 100; i++) {
            Impression original = seen.get(random.nextInt(seen.size()));
            AFTER.add(impression(original.requestId(), original.adId(), original.eventTime()));
        }
    }

    private GoldenStream() {}
}
