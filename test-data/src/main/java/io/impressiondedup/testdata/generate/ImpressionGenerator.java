package io.impressiondedup.testdata.generate;

import static io.impressiondedup.testdata.GeneratedRecord.keyOf;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;

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
 * dead-lettered holds its input until the job's watermark exists (as {@code EndToEndIT} does). Far-future records are dated in the 23rd century or 9999, so
 * they stay future whenever the data is replayed. Malformed ones cover invalid JSON, missing or
 * mistyped fields, absurd timestamps, empty and null values, binary garbage, and oversized values.
 */
public final class ImpressionGenerator implements Iterator<GeneratedRecord> {

    private static final long HOUR = Duration.ofHours(1).toMillis();
    private static final long DAY = Duration.ofDays(1).toMillis();
    /** 2200-01-01T00:00:00Z: far-future records are dated after it, so they stay future for this product's life. */
    static final long FAR_FUTURE = Instant.parse("2200-01-01T00:00:00Z").toEpochMilli();
    static final long YEAR_9999 = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private final GeneratorSettings settings;
    /** The one source of every draw: the order of the draws is what a seed reproduces. */
    private final SplittableRandom random;
    private final ZipfSampler ads;
    private final RequestIds requestIds;
    private final ImpressionPayloads payloads;
    private final MalformedRecords malformed;
    private final long startMillis;
    private final double stepMillis;
    private final long bucketMillis;
    private final long maxJitterMillis;
    /** How far behind the clock late records are stamped, at least (plus up to a bucket). */
    private final long lateOffsetMillis;
    private final long delayMinMillis;
    private final long delayMaxMillis;

    /** Copies and delayed clients' impressions scheduled and not yet emitted, by due time and then original. */
    private final DueTimeQueue<PendingRecord> pending = new DueTimeQueue<>();
    private final CopyScheduler copies;
    private final ArrayDeque<String> requestAdsLeft = new ArrayDeque<>();
    private String currentRequestId;
    private long produced;
    /** Delayed requests drawn so far: numbers their non-UUID request ids apart from every seq. */
    private long delayedRequests;

    public ImpressionGenerator(GeneratorSettings settings) {
        this.settings = settings;
        this.random = new SplittableRandom(settings.seed);
        this.ads = new ZipfSampler(settings.adCatalog, settings.adZipfExponent);
        this.requestIds = new RequestIds(random, settings.nonUuidShare, settings.timeBasedUuidShare);
        AvroImpressionEncoding avro = settings.format == ValueFormat.AVRO ? new AvroImpressionEncoding(settings.avroSchemaId) : null;
        this.payloads = new ImpressionPayloads(random, avro, settings.isoTimestampShare);
        this.malformed = new MalformedRecords(random, avro, settings.oversizedBytes);
        this.copies = new CopyScheduler(settings, random, pending);
        this.startMillis = settings.start.toEpochMilli();
        this.stepMillis = (double) settings.span.toMillis() / settings.count;
        this.bucketMillis = settings.bucketSize.toMillis();
        this.maxJitterMillis = settings.maxJitter.toMillis();
        // Past the allowed lateness, and so far past it that every bucket the job would check the record
        // against (its own +- the retention) has expired: a late record then meets no live filter, so no
        // false positive can drop it as a late duplicate, and its verdict is surely "late". The newest such
        // bucket, bucketOf(t + R), ends by t + R + B and expires R + L after that.
        this.lateOffsetMillis = 2 * settings.retention.toMillis() + settings.allowedLateness.toMillis() + bucketMillis + 6 * HOUR;
        this.delayMinMillis = settings.delayMin.toMillis();
        this.delayMaxMillis = settings.delayMax.toMillis();
    }

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
            PendingRecord due = pending.poll();
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
        // With a share of 0 nothing is drawn here: the stream is then a function of the other settings alone.
        while (settings.delayedShare > 0 && random.nextDouble() < settings.delayedShare) {
            delayRequest(seq, clock);
        }
        currentRequestId = requestIds.next(seq, clock);
        int adCount = adCount();
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
     * A request from a delayed client: its impressions, stamped at {@code clock}, are queued to be written a delay
     * in [delayMin, delayMax] later. The delay stays at least {@link GeneratorSettings#DELAY_MARGIN}
     * inside the allowed lateness, so they are in time and deduplicated normally.
     */
    private void delayRequest(long seq, long clock) {
        String requestId = requestIds.next(settings.count + delayedRequests++, clock);
        long due = clock + delayMinMillis + random.nextLong(delayMaxMillis - delayMinMillis + 1);
        int adCount = adCount();
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
                pending.add(due, seq, PendingRecord.delayedImpression(stamp(clock), requestId, ad));
            }
        }
    }

    /** How many ads a request shows: 1, and each further one up to the maximum with probability 0.35. */
    private int adCount() {
        int adCount = 1;
        while (adCount < settings.maxAdsPerRequest && random.nextDouble() < 0.35) {
            adCount++;
        }
        return adCount;
    }

    private String adId() {
        return "ad-" + ads.sample(random);
    }

    /**
     * A delayed client's impression, written at {@code clock} with the event time it was stamped with: unique (the
     * first of its identity in the stream), and, like any impression, it may have copies, written after it ({@link
     * CopyScheduler}).
     */
    private GeneratedRecord delayedImpression(long seq, long clock, PendingRecord delayed) {
        Payload payload = payloads.draw(delayed.requestId, delayed.adId);
        copies.scheduleCopiesOfFlushed(seq, delayed.requestId, delayed.adId, payload, delayed.eventTime, clock);
        return record(seq, RecordClass.UNIQUE, null, seq, delayed.requestId, delayed.adId, delayed.eventTime, payload);
    }

    /** A first impression of (request, ad): unique; may schedule copies of itself. */
    private GeneratedRecord impression(long seq, String requestId, String adId, long eventTime) {
        Payload payload = payloads.draw(requestId, adId);
        copies.scheduleCopiesOf(seq, requestId, adId, payload, eventTime);
        return record(seq, RecordClass.UNIQUE, null, seq, requestId, adId, eventTime, payload);
    }

    private GeneratedRecord copy(long seq, PendingRecord copy) {
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

    private GeneratedRecord late(long seq, long clock) {
        String requestId = requestIds.next(seq, clock);
        String adId = adId();
        long eventTime = clock - lateOffsetMillis - random.nextLong(bucketMillis);
        return record(seq, RecordClass.LATE, "late", -1, requestId, adId, eventTime, payloads.draw(requestId, adId));
    }

    private GeneratedRecord future(long seq) {
        String requestId = requestIds.next(seq, startMillis);
        String adId = adId();
        long eventTime = random.nextDouble() < 0.2 ? YEAR_9999 : FAR_FUTURE + random.nextLong(100 * 365 * DAY);
        return record(seq, RecordClass.FUTURE, "future-timestamp", -1, requestId, adId, eventTime, payloads.draw(requestId, adId));
    }

    private GeneratedRecord malformed(long seq, long clock) {
        String requestId = requestIds.next(seq, clock);
        String adId = adId();
        return malformed.next(seq, clock, requestId, adId, payloads.draw(requestId, adId));
    }

    private GeneratedRecord record(
            long seq, RecordClass recordClass, String reason, long group, String requestId, String adId, long eventTime, Payload payload) {
        return new GeneratedRecord(seq, recordClass, reason, group, requestId, adId, eventTime, keyOf(requestId),
                payloads.stamp(payload, eventTime), payloads.json());
    }
}
