package io.impressiondedup.operators.dedup;

import io.impressiondedup.state.time.TimeBuckets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether restored dedup state may run under the time options this job has ({@link TimeBuckets#description()}).
 *
 * <p><b>Bucket size and zone</b> define what a bucket id means (which instants bucket {@code b} covers). Under
 * others, a record would be looked up in buckets that hold other hours, and its copies in the bucket that does
 * hold them would go unseen: a restore that changes either fails, naming the option. <b>Retention and allowed
 * lateness</b> may change either way: a shorter one drops buckets sooner; a longer one would need buckets the old
 * options already dropped, and {@link TimeBuckets} rule 7 (the oldest bucket held, kept in state) treats records
 * whose copies could have been in them as late until the watermark has moved past. Nothing passes twice.
 *
 * <p>State without recorded options (written before they were recorded, or by the state tools) is taken as
 * written under this job's options, and records them from its first snapshot on.
 */
final class TimeOptionsCheck {

    private static final Logger LOG = LoggerFactory.getLogger(TimeOptionsCheck.class);

    private TimeOptionsCheck() {}

    /** Fails naming {@code --bucket-size} or {@code --zone} if a restored description has another; logs a change of the others. */
    static void verify(Iterable<String> restored, TimeBuckets configured) {
        for (String written : restored) {
            TimeBuckets before = TimeBuckets.fromDescription(written);
            if (!before.bucketSize().equals(configured.bucketSize())) {
                throw refusal("--bucket-size", before.bucketSize() + "", configured.bucketSize() + "", written);
            }
            if (!before.zone().normalized().equals(configured.zone().normalized())) {
                throw refusal("--zone", before.zone().getId(), configured.zone().getId(), written);
            }
            if (!before.equals(configured)) {
                LOG.warn("The dedup state was written under {}; this job runs with {}. A longer retention or allowed lateness"
                        + " applies in full once the watermark has passed what the old options had already dropped; until then"
                        + " records whose copies could have been in dropped buckets are late (checked against the live buckets,"
                        + " then handled by --late-policy).", written, configured.description());
            }
            return;
        }
    }

    private static IllegalStateException refusal(String option, String written, String configured, String description) {
        return new IllegalStateException("The dedup state was written with " + option + " " + written + " (" + description
                + "), but this job runs with " + configured + ". Bucket ids mean other hours under another " + option.substring(2)
                + ", so copies of stored impressions would be looked up in the wrong filters and pass as new. Run with "
                + option + " " + written + ", or start without state.");
    }
}
