package io.impressiondedup.operators.dedup;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.state.time.TimeBuckets;
import java.time.Instant;

/**
 * The dead letter of a late record that no live bucket holds a copy of ({@link LatePolicy#DEAD_LETTER}), with the
 * reason it is late in words: either the allowed lateness behind the watermark ({@link TimeBuckets#isLate}), or the
 * event time before which the state's earlier time options make every record late ({@link TimeBuckets} rule 7).
 */
final class LateDeadLetter {

    private LateDeadLetter() {}

    /** The dead letter of {@code impression}, late against {@code watermark} or {@code lateBefore} under {@code buckets}. */
    static DeadLetter of(Impression impression, TimeBuckets buckets, long watermark, long lateBefore) {
        String why = buckets.isLate(impression.eventTime(), watermark)
                ? "is more than the allowed lateness (" + buckets.allowedLateness() + ") behind the watermark " + Instant.ofEpochMilli(watermark)
                : "is before " + Instant.ofEpochMilli(lateBefore) + ", which the time options the state was written under"
                        + " set aside (TimeBuckets rule 7: they may have dropped the buckets holding its copies)";
        return new DeadLetter(
                impression.raw(),
                DeadLetterReason.LATE,
                "event time " + Instant.ofEpochMilli(impression.eventTime()) + " " + why
                        + ", and no live bucket holds a copy of it: its copies may have been in buckets already dropped");
    }
}
