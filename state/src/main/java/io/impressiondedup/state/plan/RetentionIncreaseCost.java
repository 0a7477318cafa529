package io.impressiondedup.state.plan;

import static org.apache.flink.util.Preconditions.checkArgument;

import io.impressiondedup.state.time.TimeBuckets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.apache.flink.util.TimeUtils;

/**
 * What a restore under a longer retention ({@code --allow-retention-increase}) costs in false positives: the FPP per
 * lookup rises above the configured p until the buckets written under the old retention have expired. The promise
 * cannot be kept through it: those buckets have already spent their budget.
 *
 * <p><b>Why.</b> {@link DedupPlan} gives each bucket {@code p / L} of the budget, L = {@link
 * TimeBuckets#maxBucketsChecked()} under the options the bucket was created with, and a bucket keeps its sizing for
 * life (a Bloom filter's layers, a fingerprint bucket's value ranges). Under the new retention a lookup consults up to
 * {@code L_new > L_old} buckets ({@link TimeBuckets} rule 2). A lookup that meets k restored buckets and {@code L_new
 * - k} new ones is dropped falsely with probability at most, by the union bound over its buckets' budgets,
 *
 * <pre>
 *   k p / L_old + (L_new - k) p / L_new  =  p (1 + k (1/L_old - 1/L_new))
 * </pre>
 *
 * <b>How many restored buckets one lookup meets</b>: the restored state holds at most {@code H = }{@link
 * DedupPlan#liveBuckets(TimeBuckets)} buckets of the old options (those within retention + allowed lateness of the
 * restored watermark W0, the current one and one ahead: ids {@code bucketOf(W0 - R_old - A_old) .. bucketOf(W0) + 1},
 * A the allowed lateness), consecutive ids, and a lookup consults {@code L_new} consecutive ids; so {@code k <= min(L_new,
 * H)} and the worst case is {@link #worstFppMultiple()} times p.
 *
 * <p><b>For how long</b> (event time, counted from W0; {@link TimeBuckets} rule 4 under the new options: bucket b
 * expires when {@code W >= endOf(b) + R_new + A_new}). The oldest restored bucket {@code bucketOf(W0 - R_old - A_old)}
 * ends at most B after {@code W0 - R_old - A_old}, so it expires at most {@code (R_new + A_new) - (R_old + A_old) + B}
 * after W0 (with a shorter allowed lateness, the new options' own {@code R_new + A_new} in place of the old, and H of
 * the new options if smaller: they expire the oldest at once); while H restored buckets are held the worst case stands (and for {@code H - k} more buckets of time if a
 * lookup cannot meet all H). Each bucket of watermark progress then expires one more, and the multiple falls by {@code
 * 1/L_old - 1/L_new} each time, down to 1 when the newest restored bucket {@code bucketOf(W0) + 1} has expired: at most
 * {@code 2B + R_new + A_new} after W0 ({@link #excessLastsAtMost()}). A bucket written further ahead of the watermark
 * (a partition days ahead of the slowest) is held that much longer, and could raise k up to {@code L_new}: p {@code
 * L_new / L_old} at the very worst.
 *
 * <p><b>Worked figure</b>, the defaults with the retention raised from 2 d to 3 d (daily buckets, 1 d of allowed
 * lateness): {@code L_old = 5}, {@code L_new = 7}, H = 5; a lookup meeting the 5 restored buckets and 2 new ones risks
 * {@code p (5/5 + 2/7) = 1.286 p}; that lasts at most 2 d after the restore (until the oldest restored bucket
 * expires), then falls by {@code 0.057 p} a day (1.229, 1.171, 1.114, 1.057 p), and p holds again at most 6 d after
 * the restore. A shorter retention costs nothing ({@code L_new < L_old}: fewer buckets, each with a larger share).
 */
public final class RetentionIncreaseCost {

    private final TimeBuckets written;
    private final TimeBuckets configured;

    private RetentionIncreaseCost(TimeBuckets written, TimeBuckets configured) {
        this.written = Objects.requireNonNull(written, "written");
        this.configured = Objects.requireNonNull(configured, "configured");
        checkArgument(configured.retention().compareTo(written.retention()) > 0,
                "the retention must increase, but was %s and is %s", written.retention(), configured.retention());
    }

    /** The cost of restoring state written under {@code written} into a job running {@code configured}, a longer retention. */
    public static RetentionIncreaseCost of(TimeBuckets written, TimeBuckets configured) {
        return new RetentionIncreaseCost(written, configured);
    }

    /** {@code L_old}: the most buckets a lookup consulted under the old options, each restored bucket's share p / L_old. */
    public int bucketsCheckedBefore() {
        return written.maxBucketsChecked();
    }

    /** {@code L_new}: the most buckets a lookup consults now, each new bucket's share p / L_new. */
    public int bucketsCheckedAfter() {
        return configured.maxBucketsChecked();
    }

    /**
     * {@code H}: the most restored buckets held after the restore: {@link DedupPlan#liveBuckets(TimeBuckets)} of the
     * old options, or of the new ones if they keep less (a shorter allowed lateness expires the oldest at once).
     */
    public int restoredBuckets() {
        return Math.min(DedupPlan.liveBuckets(written), DedupPlan.liveBuckets(configured));
    }

    /** {@code k = min(L_new, H)}: the most restored buckets one lookup meets. */
    public int restoredBucketsPerLookup() {
        return Math.min(bucketsCheckedAfter(), restoredBuckets());
    }

    /** The worst FPP per lookup meeting {@code restored} restored buckets and new ones for the rest, over p. */
    public double fppMultiple(int restored) {
        checkArgument(restored >= 0 && restored <= bucketsCheckedAfter(), "restored buckets must be in [0, %s], but were %s",
                bucketsCheckedAfter(), restored);
        return (double) restored / bucketsCheckedBefore() + (double) (bucketsCheckedAfter() - restored) / bucketsCheckedAfter();
    }

    /** The worst FPP per lookup while the restored buckets are held, over p: {@code k / L_old + (L_new - k) / L_new}. */
    public double worstFppMultiple() {
        return fppMultiple(restoredBucketsPerLookup());
    }

    /** How much less each restored bucket that expires leaves: {@code 1/L_old - 1/L_new} of p (0 or less: no cost). */
    public double multipleFallPerExpiredBucket() {
        return 1.0 / bucketsCheckedBefore() - 1.0 / bucketsCheckedAfter();
    }

    /** How long after the restore's watermark the worst case stands, at most (class comment). */
    public Duration worstLastsAtMost() {
        Duration bucket = configured.bucketSize();
        Duration keptByBoth = kept(written).compareTo(kept(configured)) < 0 ? kept(written) : kept(configured);
        return kept(configured).minus(keptByBoth).plus(bucket).plus(bucket.multipliedBy(restoredBuckets() - restoredBucketsPerLookup()));
    }

    /** How long after the restore's watermark the FPP exceeds p at all, at most: until the newest restored bucket expires. */
    public Duration excessLastsAtMost() {
        return kept(configured).plus(configured.bucketSize().multipliedBy(2));
    }

    private static Duration kept(TimeBuckets buckets) {
        return buckets.retention().plus(buckets.allowedLateness());
    }

    /** The cost in one paragraph, for the job's log at restore. */
    public String describe() {
        String change = "--retention " + format(written.retention()) + " -> " + format(configured.retention());
        if (multipleFallPerExpiredBucket() <= 0) {
            return String.format(Locale.ROOT, "%s: a lookup still consults at most %d buckets, so the restored buckets' share of"
                    + " --fpp (1/%d each) keeps the FPP per lookup at most --fpp.", change, bucketsCheckedAfter(), bucketsCheckedBefore());
        }
        int k = restoredBucketsPerLookup();
        return String.format(Locale.ROOT, "%s: the FPP per lookup exceeds --fpp until the buckets written under the old retention"
                        + " expire. A lookup consults up to %d buckets instead of %d; the restored buckets keep their share of --fpp"
                        + " (1/%d each, new ones 1/%d), so a record meeting %d restored and %d new ones is dropped falsely with"
                        + " probability up to %.3fx --fpp (%d/%d + %d/%d). That lasts at most %s of event time after the restore"
                        + " (until the oldest restored bucket expires), then falls by %.3fx --fpp with each restored bucket that"
                        + " expires; --fpp holds again at most %s after the restore, when the newest bucket written under the old"
                        + " retention expires.",
                change, bucketsCheckedAfter(), bucketsCheckedBefore(), bucketsCheckedBefore(), bucketsCheckedAfter(), k,
                bucketsCheckedAfter() - k, worstFppMultiple(), k, bucketsCheckedBefore(), bucketsCheckedAfter() - k,
                bucketsCheckedAfter(), format(worstLastsAtMost()), multipleFallPerExpiredBucket(), format(excessLastsAtMost()));
    }

    private static String format(Duration duration) {
        return TimeUtils.formatWithHighestUnit(duration);
    }
}
