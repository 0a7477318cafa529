package io.impressiondedup.testdata;

import static io.impressiondedup.testdata.AsciiByteBuilder.ascii;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Generates a deterministic stream of impressions, JSON or Avro ({@link ValueFormat}), with ground truth, from a seed.
 *
 * <p><b>The stream.</b> A clock runs from {@code start} over {@code span} in equal steps, one record per
 * step, in the order they are to be written. Each step emits, in this priority: a copy of an earlier
 * impression, or a delayed client's impression, that has come due; the next ad of the current request; or, by the configured shares, a
 * late, malformed or far-future record, or a new request with one to {@code maxAdsPerRequest} ads
 * (Zipf-popular ads, UUID v4, v1 or non-UUID request ids, some ISO-8601 timestamps). Records are
 * stamped up to {@code maxJitter} behind the clock: arrival slightly out of order, as from many
 * servers.
 *
 * <p><b>Copies.</b> When an impression is emitted it may schedule copies of itself (same request,
 * ad and fields; its own later timestamp). Delays: mostly seconds to minutes, some hours (many of
 * them crossing midnight into the next day bucket), a tail up to one minute short of the retention;
 * and a few beyond retention + one bucket + 6 hours, where the original's bucket is surely outside the
 * range the copy is checked against, so the job must pass them as new. No delay falls between the
 * two, where the outcome would depend on bucket boundaries and the ground truth could not be exact.
 * The copies beyond the retention of one impression are copies of each other: they are stamped
 * within the retention of each other (within half of it either side of the first one drawn), the
 * first of them written passes as new and opens a group, and the others are its copies within the
 * retention. With the default retention of 2 days their 12-hour spread already is, so only their
 * ground truth differs from drawing them independently, not the stream.
 *
 * <p><b>Delayed clients.</b> A share of requests ({@code delayedShare}, 0 by default) come from mobile
 * or offline clients that flush late: their impressions keep the event time they were stamped with
 * but are written {@code delayMin} to {@code delayMax} later into the stream, among records whose
 * clock is that much later. They are unique impressions like any other (each opens its group and must
 * reach the output); their copies come after them, half of those within the retention re-sent with
 * the original timestamp (a retried flush). The longest delay stays {@link
 * GeneratorSettings#DELAY_MARGIN} inside the allowed lateness, so all of them are in time.
 *
 * <p><b>Dead letters.</b> Late records are stamped {@code 2 x retention + allowed lateness + 1
 * bucket + 6 h} to one bucket more behind the clock (so every bucket the job checks them against has
 * expired and no false positive can drop one as a late duplicate), with a request id of
 * their own (no live impression shares their identity), and only appear in the second half of the
 * stream. The job judges lateness by its watermark, which
 * only exists once every source reader has emitted one, and rises no faster than the slowest partition is
 * read: a replay at full speed can process any share of the stream before that, and a late record then
 * rightly passes as new (safely: nothing has expired yet to miss a copy in). So "late" here is late
 * against any watermark the stream's first impressions make; a test that expects these records
 * dead-lettered holds its input until the job's watermark exists (as {@code EndToEndTest} does). Far-future records are dated in the 23rd century or 9999, so
 * they stay future whenever the data is replayed. Malformed ones cover invalid JSON, missing or
 * mistyped fields, absurd timestamps, empty and null values, binary garbage, and oversized values.
 */
public final class ImpressionGenerator implements Iterator<GeneratedRecord> {

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();
    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long DAY = Duration.ofDays(1).toMillis();
    /**
     * The event times of the "absurd timestamp" malformed variant, as JSON text: one list for both formats, so that a
     * seed draws the same variant in JSON and in Avro (where "-5" is the long -5 and the rest are strings).
     */
    private static final String[] ABSURD_TIMESTAMPS = {"-5", "12.5", "1e30", "99999999999999999999", "null", "true"};
    /** 2200-01-01T00:00:00Z: far-future records are dated after it, so they stay future for this product's life. */
    static final long FAR_FUTURE = Instant.parse("2200-01-01T00:00:00Z").toEpochMilli();
    static final long YEAR_9999 = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();
    private static final long UUID_EPOCH_OFFSET_MILLIS = 12_219_292_800_000L; // 1582-10-15 to 1970-01-01

    private static final byte[][] USER_AGENTS = ascii(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15",
        "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
        "Roku/DVP-12.5 (12.5.0.4178-46)",
        "Mozilla/5.0 (SMART-TV; Linux; Tizen 7.0) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/5.0 Chrome/94.0.4606.31 TV Safari/537.36");
    private static final byte[][] COUNTRIES = ascii("US", "US", "US", "DE", "GB", "FR", "JP", "BR", "IN", "CA", "AU", "ES");
    private static final byte[][] DEVICES = ascii("mobile", "mobile", "mobile", "desktop", "tablet", "ctv");
    private static final byte[][] CURRENCIES = ascii("USD", "USD", "USD", "EUR", "GBP", "JPY");
    // The fixed parts of an impression's JSON, in field order.
    private static final byte[] REQUEST_ID = ascii("{\"requestId\":\"");
    private static final byte[] AD_ID = ascii("\",\"adId\":\"");
    private static final byte[] TS = ascii("\",\"ts\":");
    private static final byte[] CAMPAIGN_ID = ascii(",\"campaignId\":\"cmp-");
    private static final byte[] PLACEMENT_ID = ascii("\",\"placementId\":\"plc-");
    private static final byte[] PUBLISHER_ID = ascii("\",\"publisherId\":\"pub-");
    private static final byte[] COUNTRY = ascii("\",\"country\":\"");
    private static final byte[] DEVICE_TYPE = ascii("\",\"deviceType\":\"");
    private static final byte[] USER_AGENT = ascii("\",\"userAgent\":\"");
    private static final byte[] PRICE = ascii("\",\"price\":");
    private static final byte[] CURRENCY = ascii(",\"currency\":\"");
    private static final byte[] BID_ID = ascii("\",\"bidId\":\"");
    private static final byte[] END = ascii("\"}");

    private final GeneratorSettings settings;
    private final SplittableRandom random;
    private final ZipfSampler ads;
    private final long startMillis;
    private final double stepMillis;
    private final long retentionMillis;
    private final long bucketMillis;
    private final long maxJitterMillis;
    /** How far behind the clock late records are stamped, at least (plus up to a bucket). */
    private final long lateOffsetMillis;
    private final long delayMinMillis;
    private final long delayMaxMillis;
    /** Probability that a new impression schedules copies, so that copies make up duplicateShare of all records. */
    private final double copyProbability;
    private final long[] timeBasedNodes = new long[8];
    private final int[] timeBasedClockSequences = new int[8];

    /** The Avro encoding of the values, or null for JSON. */
    private final AvroImpressionEncoding avro;
    /** Reused to assemble payloads. */
    private final AsciiByteBuilder payloadBuilder = new AsciiByteBuilder(512);
    /** Copies scheduled and not yet emitted, by due time and then original. */
    private final DueTimeQueue<PendingCopy> pending = new DueTimeQueue<>();
    private final ArrayDeque<String> requestAdsLeft = new ArrayDeque<>();
    private String currentRequestId;
    private String oversizedPadding;
    private long produced;
    private long timeBasedCounter;
    /** Delayed requests drawn so far: numbers their non-UUID request ids apart from every seq. */
    private long delayedRequests;

    public ImpressionGenerator(GeneratorSettings settings) {
        this.settings = settings;
        this.random = new SplittableRandom(settings.seed);
        this.ads = new ZipfSampler(settings.adCatalog, settings.adZipfExponent);
        this.startMillis = settings.start.toEpochMilli();
        this.stepMillis = (double) settings.span.toMillis() / settings.count;
        this.retentionMillis = settings.retention.toMillis();
        this.bucketMillis = settings.bucketSize.toMillis();
        this.maxJitterMillis = settings.maxJitter.toMillis();
        // Past the allowed lateness, and so far past it that every bucket the job would check the record
        // against (its own +- the retention) has expired: a late record then meets no live filter, so no
        // false positive can drop it as a late duplicate, and its verdict is surely "late". The newest such
        // bucket, bucketOf(t + R), ends by t + R + B and expires R + L after that.
        this.lateOffsetMillis = 2 * retentionMillis + settings.allowedLateness.toMillis() + bucketMillis + 6 * HOUR;
        this.delayMinMillis = settings.delayMin.toMillis();
        this.delayMaxMillis = settings.delayMax.toMillis();
        this.avro = settings.format == ValueFormat.AVRO ? new AvroImpressionEncoding(settings.avroSchemaId) : null;
        double originals = 1 - settings.duplicateShare - settings.lateShare - settings.malformedShare - settings.futureShare;
        this.copyProbability = Math.min(1.0, settings.duplicateShare / (originals * MEAN_COPIES));
        for (int i = 0; i < timeBasedNodes.length; i++) {
            timeBasedNodes[i] = (random.nextLong() & 0xFFFF_FFFF_FFFFL) | 0x0100_0000_0000L; // multicast bit: random node
            timeBasedClockSequences[i] = random.nextInt(1 << 14);
        }
    }

    /** Copies an impression schedules when it schedules any: 1 + Geometric(0.2), mean 1.25. */
    private static final double MEAN_COPIES = 1.25;

    @Override
    public boolean hasNext() {
        return produced < settings.count;
    }

    @Override
    public GeneratedRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        long seq = produced++;
        long clock = startMillis + (long) (seq * stepMillis);
        if (!pending.isEmpty() && pending.peekDueTime() <= clock) {
            PendingCopy due = pending.poll();
            return due.delayedImpression ? delayedImpression(seq, clock, due) : copy(seq, due);
        }
        // Of the steps not taken by copies, dead letters take their share of all records; a request's
        // next ad waits a step for them, so the shares hold whatever the ads per request.
        double roll = random.nextDouble() * (1 - settings.duplicateShare);
        if ((roll -= settings.lateShare) < 0) {
            if (seq >= settings.count / 2) {
                return late(seq, clock);
            }
        } else if ((roll -= settings.malformedShare) < 0) {
            return malformed(seq, clock);
        } else if ((roll -= settings.futureShare) < 0) {
            return future(seq);
        }
        if (!requestAdsLeft.isEmpty()) {
            return impression(seq, currentRequestId, requestAdsLeft.poll(), stamp(clock));
        }
        return newRequest(seq, clock);
    }

    private long stamp(long clock) {
        return maxJitterMillis == 0 ? clock : clock - random.nextLong(maxJitterMillis + 1);
    }

    private GeneratedRecord newRequest(long seq, long clock) {
        // No draw at all without delayed clients: the stream stays byte for byte what it was.
        while (settings.delayedShare > 0 && random.nextDouble() < settings.delayedShare) {
            delayRequest(seq, clock);
        }
        currentRequestId = requestId(seq, clock);
        int adCount = 1;
        while (adCount < settings.maxAdsPerRequest && random.nextDouble() < 0.35) {
            adCount++;
        }
        String first = adId();
        for (int i = 1; i < adCount; i++) {
            String ad = adId();
            if (!ad.equals(first) && !requestAdsLeft.contains(ad)) {
                requestAdsLeft.add(ad);
            }
        }
        return impression(seq, currentRequestId, first, stamp(clock));
    }

    /**
     * A request from a delayed client: its impressions, stamped now, are queued to be written a delay
     * in [delayMin, delayMax] later. The delay stays at least {@link GeneratorSettings#DELAY_MARGIN}
     * inside the allowed lateness, so they are in time and deduplicated normally.
     */
    private void delayRequest(long seq, long clock) {
        String requestId = requestId(settings.count + delayedRequests++, clock);
        long due = clock + delayMinMillis + random.nextLong(delayMaxMillis - delayMinMillis + 1);
        int adCount = 1;
        while (adCount < settings.maxAdsPerRequest && random.nextDouble() < 0.35) {
            adCount++;
        }
        String[] adIds = new String[adCount];
        int distinct = 0;
        for (int i = 0; i < adCount; i++) {
            String ad = adId();
            boolean seen = false;
            for (int j = 0; j < distinct && !seen; j++) {
                seen = adIds[j].equals(ad);
            }
            if (!seen) {
                adIds[distinct++] = ad;
                pending.add(due, seq, new PendingCopy(stamp(clock), -1, requestId, ad, null, null, true));
            }
        }
    }

    /**
     * A delayed client's impression, written now with the event time it was stamped with: unique (the
     * first of its identity in the stream), and, like any impression, it may have copies. Those are
     * written after it (the client's flush comes first): half of the copies within the retention are
     * re-sent with the original timestamp (a retry of the flush), seconds to 30 minutes later; the
     * others carry a later timestamp, written at that time or, if that has passed already, with the
     * flush. Copies beyond the retention are as for any impression.
     */
    private GeneratedRecord delayedImpression(long seq, long clock, PendingCopy delayed) {
        String requestId = delayed.requestId;
        String adId = delayed.adId;
        long eventTime = delayed.eventTime;
        Payload payload = payload(requestId, adId);
        if (random.nextDouble() < copyProbability) {
            int copies = 1;
            while (random.nextDouble() < 0.2) {
                copies++;
            }
            BeyondRetentionCopies beyondCopies = null;
            for (int i = 0; i < copies; i++) {
                boolean beyond = random.nextDouble() < settings.beyondRetentionShare;
                long copyTime;
                long due;
                if (beyond) {
                    long delay = beyondRetentionDelay();
                    beyondCopies = beyondCopies == null ? new BeyondRetentionCopies(delay, retentionMillis) : beyondCopies;
                    copyTime = eventTime + beyondCopies.near(delay);
                    due = Math.max(copyTime, clock);
                } else if (random.nextDouble() < 0.5) {
                    copyTime = eventTime;
                    due = clock + retryLag();
                } else {
                    copyTime = eventTime + withinRetentionDelay();
                    due = Math.max(copyTime, clock + retryLag());
                }
                pending.add(due, seq, new PendingCopy(copyTime, seq, requestId, adId, payload, beyond ? beyondCopies : null, false));
            }
        }
        return record(seq, RecordClass.UNIQUE, null, seq, requestId, adId, eventTime, payload);
    }

    /** How long after a delayed client's flush a copy of it comes: 60% seconds (mean 5 s), 40% 10 s to 30 minutes. */
    private long retryLag() {
        return random.nextDouble() < 0.6 ? (long) (-Math.log(1 - random.nextDouble()) * 5_000) : 10_000 + random.nextLong(30 * MINUTE);
    }

    /** A first impression of (request, ad): unique; may schedule copies of itself. */
    private GeneratedRecord impression(long seq, String requestId, String adId, long eventTime) {
        Payload payload = payload(requestId, adId);
        if (random.nextDouble() < copyProbability) {
            int copies = 1;
            while (random.nextDouble() < 0.2) {
                copies++;
            }
            BeyondRetentionCopies beyondCopies = null;
            for (int i = 0; i < copies; i++) {
                boolean beyond = random.nextDouble() < settings.beyondRetentionShare;
                long delay;
                if (beyond) {
                    delay = beyondRetentionDelay();
                    beyondCopies = beyondCopies == null ? new BeyondRetentionCopies(delay, retentionMillis) : beyondCopies;
                    delay = beyondCopies.near(delay);
                } else {
                    delay = withinRetentionDelay();
                }
                long due = eventTime + delay;
                pending.add(due, seq, new PendingCopy(due, seq, requestId, adId, payload, beyond ? beyondCopies : null, false));
            }
        }
        return record(seq, RecordClass.UNIQUE, null, seq, requestId, adId, eventTime, payload);
    }

    private GeneratedRecord copy(long seq, PendingCopy copy) {
        if (copy.beyondRetention == null) {
            return record(seq, RecordClass.DUPLICATE_WITHIN_RETENTION, null, copy.originalSeq, copy.requestId, copy.adId, copy.eventTime,
                    copy.payload);
        }
        if (copy.beyondRetention.group < 0) { // the first of them written: new to the job, it opens a group
            copy.beyondRetention.group = seq;
            return record(seq, RecordClass.DUPLICATE_BEYOND_RETENTION, null, seq, copy.requestId, copy.adId, copy.eventTime, copy.payload);
        }
        return record(seq, RecordClass.DUPLICATE_WITHIN_RETENTION, null, copy.beyondRetention.group, copy.requestId, copy.adId,
                copy.eventTime, copy.payload);
    }

    /**
     * The copies beyond the retention of one impression: one identity, so copies of each other if
     * stamped within the retention of each other, which {@link #near} makes them. The first written
     * opens their group.
     */
    private static final class BeyondRetentionCopies {
        private final long firstDelay;
        private final long halfSpread;
        /** Sequence number of the first of them written, -1 before. */
        long group = -1;

        BeyondRetentionCopies(long firstDelay, long retentionMillis) {
            this.firstDelay = firstDelay;
            // Any two within R - 1 min of each other. Moved towards the first one's, a delay stays within the
            // range drawn from, so every one of them stays beyond the retention of the original.
            this.halfSpread = (retentionMillis - MINUTE) / 2;
        }

        /** A delay drawn for another of them, moved (towards the first one's) to within half a retention of the first one's. */
        long near(long delay) {
            return Math.max(firstDelay - halfSpread, Math.min(firstDelay + halfSpread, delay));
        }
    }

    /**
     * Delay of a copy within retention: 60% seconds (exponential, mean 5 s), 25% up to 30 minutes,
     * 10% up to a day, 5% up to a minute short of the retention.
     */
    private long withinRetentionDelay() {
        double roll = random.nextDouble();
        long delay;
        if (roll < 0.60) {
            delay = (long) (-Math.log(1 - random.nextDouble()) * 5_000);
        } else if (roll < 0.85) {
            delay = 10_000 + random.nextLong(30 * MINUTE);
        } else if (roll < 0.95) {
            delay = 30 * MINUTE + random.nextLong(DAY - 30 * MINUTE);
        } else {
            delay = DAY + random.nextLong(Math.max(1, retentionMillis - DAY - MINUTE));
        }
        return Math.min(delay, retentionMillis - MINUTE);
    }

    /** Beyond retention + one bucket + 6 hours: the original's bucket has expired by then. */
    private long beyondRetentionDelay() {
        return retentionMillis + bucketMillis + 6 * HOUR + random.nextLong(12 * HOUR);
    }

    private GeneratedRecord late(long seq, long clock) {
        String requestId = requestId(seq, clock);
        String adId = adId();
        long eventTime = clock - lateOffsetMillis - random.nextLong(bucketMillis);
        return record(seq, RecordClass.LATE, "late", -1, requestId, adId, eventTime, payload(requestId, adId));
    }

    private GeneratedRecord future(long seq) {
        String requestId = requestId(seq, startMillis);
        String adId = adId();
        long eventTime = random.nextDouble() < 0.2 ? YEAR_9999 : FAR_FUTURE + random.nextLong(100 * 365 * DAY);
        return record(seq, RecordClass.FUTURE, "future-timestamp", -1, requestId, adId, eventTime, payload(requestId, adId));
    }

    private GeneratedRecord malformed(long seq, long clock) {
        String requestId = requestId(seq, clock);
        String adId = adId();
        Payload payload = payload(requestId, adId);
        if (avro != null) {
            return malformedAvro(seq, clock, requestId, adId, payload);
        }
        String json;
        String reason = "malformed";
        boolean jsonObject = true;
        switch (random.nextInt(11)) {
            case 0: // invalid JSON: cut short
                json = payload.before() + clock;
                jsonObject = false;
                break;
            case 1:
                json = payload.json(clock).replace("\"requestId\":\"" + requestId + "\",", "");
                break;
            case 2:
                json = payload.json(clock).replace("\"adId\":\"" + adId + "\",", "");
                break;
            case 3:
                json = payload.before() + "\"yesterday\"" + payload.after();
                break;
            case 4:
                json = payload.before() + ABSURD_TIMESTAMPS[random.nextInt(ABSURD_TIMESTAMPS.length)] + payload.after();
                break;
            case 5:
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, keyOf(requestId), new byte[0], false);
            case 6:
                byte[] garbage = new byte[50 + random.nextInt(250)];
                random.nextBytes(garbage);
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, null, garbage, false);
            case 7:
                json = payload.json(clock).replace("\"currency\"", "\"padding\":\"" + oversizedPadding() + "\",\"currency\"");
                reason = "oversized";
                break;
            case 8:
                json = payload.json(clock).replace("\"requestId\":\"" + requestId + "\"", "\"requestId\":" + (seq + 1));
                break;
            case 9:
                json = "[\"" + requestId + "\",\"" + adId + "\"," + clock + "]";
                jsonObject = false;
                break;
            default:
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, keyOf(requestId), null, false);
        }
        return record(seq, RecordClass.MALFORMED, reason, -1, requestId, adId, Long.MIN_VALUE, keyOf(requestId),
                json.getBytes(StandardCharsets.UTF_8), jsonObject);
    }

    /**
     * The Avro counterparts of {@link #malformed}'s JSON variants, variant for variant with the same random draws, so
     * that a seed gives the same stream in either format: truncated, an empty request id, a null ad id (missing), a
     * timestamp string that is no instant, an absurd timestamp, empty, garbage (its first byte makes it a negative
     * string length, or a wrong magic byte with the prefix: never a record by chance), oversized, trailing bytes, a
     * union branch out of range, null.
     */
    private GeneratedRecord malformedAvro(long seq, long clock, String requestId, String adId, Payload payload) {
        byte[] value;
        String reason = "malformed";
        switch (random.nextInt(11)) {
            case 0:
                byte[] whole = payload.bytes(clock);
                value = Arrays.copyOf(whole, payload.before.length + 1);
                break;
            case 1:
                value = AvroImpressionEncoding.concat(avro.before("", adId), AvroImpressionEncoding.eventTime(clock), payload.after);
                break;
            case 2:
                value = AvroImpressionEncoding.concat(avro.before(requestId, null), AvroImpressionEncoding.eventTime(clock), payload.after);
                break;
            case 3:
                value = payload.bytes("yesterday");
                break;
            case 4:
                String chosen = ABSURD_TIMESTAMPS[random.nextInt(ABSURD_TIMESTAMPS.length)];
                value = chosen.equals("-5") ? payload.bytes(-5L) : payload.bytes(chosen);
                break;
            case 5:
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, keyOf(requestId), new byte[0], false);
            case 6:
                byte[] garbage = new byte[50 + random.nextInt(250)];
                random.nextBytes(garbage);
                garbage[0] = 1;
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, null, garbage, false);
            case 7:
                byte[] full = payload.bytes(clock);
                // A second block of the attributes map, of one entry, in place of the map's end: valid Avro, only too large.
                value = AvroImpressionEncoding.concat(Arrays.copyOf(full, full.length - 1),
                        new AvroImpressionEncoding.Bytes().varint(1).string("padding").string(oversizedPadding()).varint(0).toByteArray());
                reason = "oversized";
                break;
            case 8:
                value = AvroImpressionEncoding.concat(payload.bytes(clock), new byte[] {0});
                break;
            case 9:
                value = AvroImpressionEncoding.concat(payload.before, new byte[] {(byte) (2 * AvroImpressionEncoding.TS_NO_SUCH_BRANCH)},
                        payload.after);
                break;
            default:
                return record(seq, RecordClass.MALFORMED, reason, -1, "", "", Long.MIN_VALUE, keyOf(requestId), null, false);
        }
        return record(seq, RecordClass.MALFORMED, reason, -1, requestId, adId, Long.MIN_VALUE, keyOf(requestId), value, false);
    }

    /** The filler that makes a value oversized: the same for every such record, so built once. */
    private String oversizedPadding() {
        if (oversizedPadding == null) {
            StringBuilder padding = new StringBuilder(settings.oversizedBytes + 16);
            while (padding.length() < settings.oversizedBytes) {
                padding.append("0123456789abcdef");
            }
            oversizedPadding = padding.toString();
        }
        return oversizedPadding;
    }

    private GeneratedRecord record(
            long seq, RecordClass recordClass, String reason, long group, String requestId, String adId, long eventTime, Payload payload) {
        boolean iso = random.nextDouble() < settings.isoTimestampShare;
        byte[] value = iso
                ? payload.bytes(Instant.ofEpochMilli(eventTime).toString())
                : payload.bytes(eventTime);
        return record(seq, recordClass, reason, group, requestId, adId, eventTime, keyOf(requestId), value, avro == null);
    }

    private static GeneratedRecord record(
            long seq,
            RecordClass recordClass,
            String reason,
            long group,
            String requestId,
            String adId,
            long eventTime,
            byte[] key,
            byte[] value,
            boolean jsonObject) {
        return new GeneratedRecord(seq, recordClass, reason, group, requestId, adId, eventTime, key, value, jsonObject);
    }

    private static byte[] keyOf(String requestId) {
        return requestId.getBytes(StandardCharsets.UTF_8);
    }

    /** 65% random UUID v4, 30% time-based v1 (structured leading digits), 5% non-UUID; unique by construction. */
    private String requestId(long seq, long clock) {
        double roll = random.nextDouble();
        if (roll < settings.nonUuidShare) {
            return "req-" + Long.toString(seq, 36) + "-" + Integer.toString(random.nextInt(Integer.MAX_VALUE), 36);
        }
        if (roll < settings.nonUuidShare + settings.timeBasedUuidShare) {
            int host = random.nextInt(timeBasedNodes.length);
            long time = (clock + UUID_EPOCH_OFFSET_MILLIS) * 10_000 + (timeBasedCounter++ % 10_000);
            long msb = (time << 32) | ((time >>> 16) & 0xFFFF0000L) | 0x1000L | ((time >>> 48) & 0x0FFFL);
            long lsb = 0x8000_0000_0000_0000L | ((long) timeBasedClockSequences[host] << 48) | timeBasedNodes[host];
            return new UUID(msb, lsb).toString();
        }
        long msb = (random.nextLong() & 0xFFFF_FFFF_FFFF_0FFFL) | 0x4000L;
        long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb).toString();
    }

    private String adId() {
        return "ad-" + ads.sample(random);
    }

    /** The value of an impression (JSON or Avro), split around its timestamp so copies can re-stamp it. */
    private Payload payload(String requestId, String adId) {
        int adRank = Integer.parseInt(adId, 3, adId.length(), 10);
        // The random draws below run in this order: it is part of what a seed reproduces, in either format.
        int placement = random.nextInt(2000);
        int publisher = random.nextInt(300);
        byte[] country = COUNTRIES[random.nextInt(COUNTRIES.length)];
        byte[] deviceType = DEVICES[random.nextInt(DEVICES.length)];
        byte[] userAgent = USER_AGENTS[random.nextInt(USER_AGENTS.length)];
        int priceUnits = random.nextInt(20);
        int priceTenThousandths = 1000 + random.nextInt(9000);
        byte[] currency = CURRENCIES[random.nextInt(CURRENCIES.length)];
        long bidId = random.nextLong();
        if (avro != null) {
            return new Payload(avro.before(requestId, adId), avro.after(adRank % 400, placement, publisher, country, deviceType, userAgent,
                    priceUnits, priceTenThousandths, currency, bidId), true);
        }
        byte[] before = payloadBuilder.reset()
                .append(REQUEST_ID).append(requestId)
                .append(AD_ID).append(adId)
                .append(TS)
                .toByteArray();
        byte[] after = payloadBuilder.reset()
                .append(CAMPAIGN_ID).append(adRank % 400)
                .append(PLACEMENT_ID).append(placement)
                .append(PUBLISHER_ID).append(publisher)
                .append(COUNTRY).append(country)
                .append(DEVICE_TYPE).append(deviceType)
                .append(USER_AGENT).append(userAgent)
                .append(PRICE).append(priceUnits).append('.').append(priceTenThousandths)
                .append(CURRENCY).append(currency)
                .append(BID_ID).appendHex(bidId)
                .append(END)
                .toByteArray();
        return new Payload(before, after, false);
    }

    /**
     * An impression's value around its timestamp value: JSON (ASCII), or Avro ({@link AvroImpressionEncoding}). Only
     * the bytes are kept: copies waiting in {@link #pending} hold their payload for up to the retention, and are most
     * of the live heap.
     */
    private static final class Payload {
        private final byte[] before;
        private final byte[] after;
        private final boolean avro;

        Payload(byte[] before, byte[] after, boolean avro) {
            this.before = before;
            this.after = after;
            this.avro = avro;
        }

        /** The value with {@code eventTime} as epoch millis. */
        byte[] bytes(long eventTime) {
            return avro ? AvroImpressionEncoding.concat(before, AvroImpressionEncoding.eventTime(eventTime), after) : jsonBytes(eventTime);
        }

        /** The value with {@code timestamp} as a string. */
        byte[] bytes(String timestamp) {
            return avro ? AvroImpressionEncoding.concat(before, AvroImpressionEncoding.eventTime(timestamp), after) : jsonBytes(timestamp);
        }

        /** The JSON up to the timestamp value, for the rare malformed variants built from strings. */
        String before() {
            return new String(before, StandardCharsets.US_ASCII);
        }

        String after() {
            return new String(after, StandardCharsets.US_ASCII);
        }

        String json(long eventTime) {
            return before() + eventTime + after();
        }

        /** The JSON with {@code eventTime} as epoch millis, built in one array. */
        byte[] jsonBytes(long eventTime) {
            byte[] json = new byte[before.length + Digits.length(eventTime) + after.length];
            System.arraycopy(before, 0, json, 0, before.length);
            int pos = Digits.write(eventTime, json, before.length);
            System.arraycopy(after, 0, json, pos, after.length);
            return json;
        }

        /** The JSON with {@code timestamp} as a JSON string. */
        byte[] jsonBytes(String timestamp) {
            byte[] json = new byte[before.length + timestamp.length() + 2 + after.length];
            System.arraycopy(before, 0, json, 0, before.length);
            int pos = before.length;
            json[pos++] = '"';
            for (int i = 0; i < timestamp.length(); i++) {
                json[pos++] = (byte) timestamp.charAt(i);
            }
            json[pos++] = '"';
            System.arraycopy(after, 0, json, pos, after.length);
            return json;
        }
    }

    /**
     * A record waiting for its due time: a copy (its own event time, its original's seq and payload),
     * or a delayed client's impression (the event time it was stamped with; no seq or payload yet).
     */
    private static final class PendingCopy {
        final long eventTime;
        final long originalSeq;
        final String requestId;
        final String adId;
        final Payload payload;
        /** For a copy beyond the retention, the others of its impression; null for any other record. */
        final BeyondRetentionCopies beyondRetention;
        final boolean delayedImpression;

        PendingCopy(long eventTime, long originalSeq, String requestId, String adId, Payload payload, BeyondRetentionCopies beyondRetention,
                boolean delayedImpression) {
            this.eventTime = eventTime;
            this.originalSeq = originalSeq;
            this.requestId = requestId;
            this.adId = adId;
            this.payload = payload;
            this.beyondRetention = beyondRetention;
            this.delayedImpression = delayedImpression;
        }
    }
}
