package io.impressiondedup.operators.dedup.restore;

import io.impressiondedup.state.plan.RetentionIncreaseCost;
import io.impressiondedup.state.time.TimeBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether restored dedup state may run under the time options this job has ({@link TimeBuckets#description()}), and
 * from which event time on records are in time again ({@link TimeBuckets} rule 7).
 *
 * <p><b>Bucket size and zone</b> define what a bucket id means (which instants bucket {@code b} covers). Under
 * others, a record would be looked up in buckets that hold other hours, and its copies in the bucket that does hold
 * them would go unseen: a restore that changes either fails, naming the option.
 *
 * <p><b>Allowed lateness</b> may change either way. A shorter one drops buckets sooner; under a longer one, rule 7
 * keeps every record the old lateness set aside late until the watermark has moved past, so nothing passes that the
 * old options would have caught, and no record they accepted is set aside.
 *
 * <p><b>Retention</b> may get shorter. A longer one needs {@code --allow-retention-increase}: the buckets the old
 * retention dropped are gone, so until the watermark has moved past them a copy further apart than the old retention,
 * of an impression in one of them, passes once. Copies up to the old retention apart are found throughout (rule 7),
 * and copies up to the new one wherever their bucket is still held. The alternative, setting every record aside whose
 * range reaches a dropped bucket, would dead-letter all traffic for up to the difference: genuine impressions lost.
 * It also costs FPP: the restored buckets keep their share {@code p / L_old} while lookups consult {@code L_new > L_old}
 * buckets, so until they expire a lookup may be dropped falsely with probability above p ({@link RetentionIncreaseCost}:
 * 1.29 p at most for 2 d -> 3 d with the defaults); that cost is logged once at restore.
 *
 * <p>State without recorded options (state v1-v3, or written by the state tools) is taken as written
 * under this job's options (logged), and records them from its first snapshot on.
 */
final class TimeOptionsCheck {

    private static final Logger LOG = LoggerFactory.getLogger(TimeOptionsCheck.class);

    private TimeOptionsCheck() {}

    /**
     * Fails naming {@code --bucket-size} or {@code --zone} if a restored description has another, or {@code --retention}
     * if it had a shorter one and {@code allowRetentionIncrease} is false; logs any other change.
     */
    static void verify(Iterable<String> restored, TimeBuckets configured, boolean allowRetentionIncrease) {
        for (String written : restored) {
            TimeBuckets before = TimeBuckets.fromDescription(written);
            if (!before.bucketSize().equals(configured.bucketSize())) {
                throw refusal("--bucket-size", before.bucketSize() + "", configured.bucketSize() + "", written,
                        "Bucket ids mean other hours under another bucket size, so copies of stored impressions would be looked up in the"
                                + " wrong filters and pass as new. Run with --bucket-size " + before.bucketSize() + ", or start without state.");
            }
            if (!before.zone().normalized().equals(configured.zone().normalized())) {
                throw refusal("--zone", before.zone().getId(), configured.zone().getId(), written,
                        "Bucket ids mean other hours under another zone, so copies of stored impressions would be looked up in the"
                                + " wrong filters and pass as new. Run with --zone " + before.zone().getId() + ", or start without state.");
            }
            if (configured.retention().compareTo(before.retention()) > 0 && !allowRetentionIncrease) {
                throw refusal("--retention", before.retention() + "", configured.retention() + "", written,
                        "The buckets the shorter retention dropped are gone: until the watermark has moved past them, a copy further"
                                + " apart than " + before.retention() + " of an impression in one of them would pass once. Run with"
                                + " --retention " + before.retention() + ", or add --allow-retention-increase to accept that.");
            }
            if (configured.retention().compareTo(before.retention()) > 0) {
                LOG.warn("A longer retention was accepted (--allow-retention-increase). {}",
                        RetentionIncreaseCost.of(before, configured).describe());
            }
            if (!before.equals(configured)) {
                LOG.warn("The dedup state was written under {}; this job runs with {}. Records the old options set aside stay late"
                        + " until the watermark has moved past them (TimeBuckets rule 7).", written, configured.description());
            }
            return;
        }
        LOG.info("The restored dedup state records no time options: it is taken as written under {}.", configured.description());
    }

    /**
     * The event time before which records are late whatever the watermark, restored: the highest recorded value, or for
     * state that records none, the one these options give at the restored watermark.
     */
    static long restoredLateBefore(Iterable<Long> restored, TimeBuckets configured, long restoredWatermark) {
        long lateBefore = Long.MIN_VALUE;
        boolean recorded = false;
        for (Long value : restored) {
            lateBefore = Math.max(lateBefore, value);
            recorded = true;
        }
        return recorded ? lateBefore : configured.lateBefore(restoredWatermark, Long.MIN_VALUE);
    }

    private static IllegalStateException refusal(String option, String written, String configured, String description, String why) {
        return new IllegalStateException("The dedup state was written with " + option + " " + written + " (" + description
                + "), but this job runs with " + configured + ". " + why);
    }
}
