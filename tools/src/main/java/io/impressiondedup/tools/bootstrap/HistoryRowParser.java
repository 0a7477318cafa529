package io.impressiondedup.tools.bootstrap;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads a row {@code requestId,adId,timestamp} of a history file, by the rules the job reads an impression
 * with: non-empty ids taken as they are (no trimming: {@code " r1"} and {@code "r1"} are two request ids to the
 * job too), an event time in epoch milliseconds or an ISO-8601 instant with an offset, not before {@code
 * --min-event-time}. Fields may be double-quoted (RFC 4180, {@code ""} for a quote), so ids with commas fit.
 * The first line may be a header: three names, the last not a time.
 *
 * <p>A bad row is never skipped silently: {@link Row#error} says what is wrong, with the line number.
 */
public final class HistoryRowParser {

    private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_ .-]*");
    private static final Pattern EPOCH_MILLIS = Pattern.compile("-?[0-9]{1,19}");

    private final long minEventTimeMillis;

    HistoryRowParser(Instant minEventTime) {
        this.minEventTimeMillis = minEventTime.toEpochMilli();
    }

    /** A parsed line: an impression, the header, or a bad row with its reason. */
    record Row(String requestId, String adId, long eventTime, boolean header, String error) {

        static Row impression(String requestId, String adId, long eventTime) {
            return new Row(requestId, adId, eventTime, false, null);
        }

        static Row bad(long lineNumber, String why) {
            return new Row(null, null, 0, false, "line " + lineNumber + ": " + why);
        }

        boolean isImpression() {
            return !header && error == null;
        }
    }

    Row parse(long lineNumber, String line) {
        Row simple = parseSimple(line);
        return simple != null ? simple : parseGeneral(lineNumber, line);
    }

    /**
     * The row of most histories, read without the general path's allocations and pattern: three unquoted non-empty fields,
     * the last epoch milliseconds not before {@code --min-event-time}; {@code null} for any other line, which {@link
     * #parseGeneral} reads by the same rules (it gives the same row for every line this reads).
     */
    private Row parseSimple(String line) {
        int first = line.indexOf(',');
        int second = first <= 0 ? -1 : line.indexOf(',', first + 1);
        if (second <= first + 1 || second + 1 == line.length() || line.indexOf(',', second + 1) >= 0 || line.indexOf('"') >= 0) {
            return null;
        }
        long eventTime;
        try {
            eventTime = epochMillis(line, second + 1);
        } catch (NumberFormatException notSimple) {
            return null;
        }
        if (eventTime < minEventTimeMillis) {
            return null;
        }
        return Row.impression(line.substring(0, first), line.substring(first + 1, second), eventTime);
    }

    /** The epoch milliseconds {@code text} holds from {@code start} on, as {@link #EPOCH_MILLIS} takes them. */
    private static long epochMillis(String text, int start) {
        int digits = text.length() - start - (text.charAt(start) == '-' ? 1 : 0);
        if (digits < 1 || digits > 19) {
            throw new NumberFormatException();
        }
        for (int i = text.length() - digits; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException();
            }
        }
        return Long.parseLong(text, start, text.length(), 10);
    }

    /** Any line: quoted fields, headers, ISO-8601 times, and every way a row can be bad. */
    Row parseGeneral(long lineNumber, String line) {
        List<String> fields = new ArrayList<>(3);
        String splitError = split(line, fields);
        if (splitError != null) {
            return Row.bad(lineNumber, splitError + ": " + abbreviate(line));
        }
        if (fields.size() != 3) {
            return Row.bad(lineNumber, "expected 3 fields requestId,adId,timestamp but found " + fields.size() + ": " + abbreviate(line));
        }
        String requestId = fields.get(0);
        String adId = fields.get(1);
        String time = fields.get(2);
        Long eventTime = eventTime(time);
        if (eventTime == null && lineNumber == 1 && fields.stream().allMatch(f -> HEADER_NAME.matcher(f).matches())) {
            return new Row(null, null, 0, true, null);
        }
        if (requestId.isEmpty()) {
            return Row.bad(lineNumber, "empty request id");
        }
        if (adId.isEmpty()) {
            return Row.bad(lineNumber, "empty ad id");
        }
        if (eventTime == null) {
            return Row.bad(lineNumber, "timestamp '" + abbreviate(time) + "' is neither epoch milliseconds nor an ISO-8601 instant"
                    + " with an offset (e.g. 2026-11-22T10:00:00Z)");
        }
        if (eventTime < minEventTimeMillis) {
            return Row.bad(lineNumber, "timestamp " + time + " is before --min-event-time " + Instant.ofEpochMilli(minEventTimeMillis)
                    + " (the job dead-letters such records)");
        }
        return Row.impression(requestId, adId, eventTime);
    }

    /** Epoch milliseconds of {@code text}, or {@code null} if it is no time. */
    public static Long eventTime(String text) {
        if (EPOCH_MILLIS.matcher(text).matches()) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                return null; // beyond a long
            }
        }
        try {
            return OffsetDateTime.parse(text).toInstant().toEpochMilli();
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

    /** Splits {@code line} into {@code fields}; returns what is wrong with its quoting, or {@code null}. */
    private static String split(String line, List<String> fields) {
        StringBuilder field = new StringBuilder();
        int i = 0;
        int n = line.length();
        while (true) {
            field.setLength(0);
            if (i < n && line.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= n) {
                        return "unterminated quoted field";
                    }
                    char c = line.charAt(i++);
                    if (c == '"') {
                        if (i < n && line.charAt(i) == '"') {
                            field.append('"');
                            i++;
                        } else {
                            break;
                        }
                    } else {
                        field.append(c);
                    }
                }
                if (i < n && line.charAt(i) != ',') {
                    return "text after a quoted field";
                }
            } else {
                while (i < n && line.charAt(i) != ',') {
                    char c = line.charAt(i++);
                    if (c == '"') {
                        return "a quote inside an unquoted field";
                    }
                    field.append(c);
                }
            }
            fields.add(field.toString());
            if (i >= n) {
                return null;
            }
            i++; // the comma
        }
    }

    private static String abbreviate(String s) {
        return s.length() <= 120 ? s : s.substring(0, 120) + "...";
    }
}
