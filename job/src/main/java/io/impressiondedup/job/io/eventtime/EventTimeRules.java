package io.impressiondedup.job.io.eventtime;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.job.config.ParserSettings;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;

/**
 * The one place that decides whether an event time is valid, whatever format carried it: epoch milliseconds
 * (an integer) or an ISO-8601 instant with an offset (a string), not before {@code --min-event-time}
 * (2000-01-01 by default: no impression is that old, and such a time, negative epoch milliseconds in
 * particular, is a watermark hazard) and within the range of epoch milliseconds. Nothing here can overflow:
 * an instant beyond that range (years up to +/-999,999,999 parse) is reported as such.
 *
 * <p>Each check returns null if the time is valid, then readable from {@link #lastValid()} (no boxing on the
 * hot path), else what is wrong with it, worded to follow the field's name ({@code "'ts' " + error}). The
 * far-future check is not here: it needs the clock, and {@code ImpressionAssembler} applies it to every format.
 * One instance per parser; not thread-safe.
 */
public final class EventTimeRules {

    private final long minEventTimeMillis;
    private final Instant minEventTime;
    private long lastValid;

    public EventTimeRules(ParserSettings settings) {
        this.minEventTimeMillis = settings.minEventTimeMillis();
        this.minEventTime = settings.minEventTime();
    }

    /** Null if {@code millis} (epoch milliseconds) is a valid event time, now {@link #lastValid()}, else what is wrong with it. */
    public String epochMillisError(long millis) {
        if (millis < minEventTimeMillis) {
            return beforeMinimum(millis + " (" + Instant.ofEpochMilli(millis) + ")");
        }
        lastValid = millis;
        return null;
    }

    /** Null if {@code text} is a valid ISO-8601 instant with an offset, now {@link #lastValid()}, else what is wrong with it. */
    public String isoInstantError(String text) {
        Instant instant;
        try {
            instant = OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeException | ArithmeticException e) {
            return "must be epoch milliseconds or an ISO-8601 instant with an offset (e.g. 2026-11-22T10:00:00Z), but is a string "
                    + DeadLetter.abbreviated(text);
        }
        // Compared as instants, before converting: a time far in the past names the option, not an overflow.
        if (instant.isBefore(minEventTime)) {
            return beforeMinimum(DeadLetter.abbreviated(text));
        }
        try {
            lastValid = instant.toEpochMilli();
        } catch (ArithmeticException e) {
            return DeadLetter.abbreviated(text) + " is beyond the range of epoch milliseconds";
        }
        return null;
    }

    /** The event time the last check that returned null accepted, epoch milliseconds. */
    public long lastValid() {
        return lastValid;
    }

    private String beforeMinimum(String value) {
        return value + " is before --min-event-time " + minEventTime;
    }
}
