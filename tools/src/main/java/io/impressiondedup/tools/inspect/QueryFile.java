package io.impressiondedup.tools.inspect;

import io.impressiondedup.job.config.InvalidOptionException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * The impressions {@code inspect} looks up: a CSV file of {@code requestId,adId,eventTime} lines (a header
 * line allowed, fields may be double-quoted with {@code ""} for a quote, so ids with commas fit), or the
 * three query options. Event times are epoch milliseconds or ISO-8601 instants with an offset.
 */
final class QueryFile {

    /** One line of the file, not yet digested. */
    record Row(String requestId, String adId, long eventTime) {}

    private QueryFile() {}

    /** The rows of {@code file}; fails naming {@code --query-file} and the line. */
    static List<Row> read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidOptionException("Cannot read --" + InspectOptions.QUERY_FILE.key() + " " + file + ": " + e, e);
        }
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            String where = "--" + InspectOptions.QUERY_FILE.key() + " " + file + " line " + (i + 1);
            List<String> fields = fields(line, where);
            if (fields.size() != 3) {
                throw new InvalidOptionException(where + ": expected requestId,adId,eventTime but found " + fields.size() + " fields");
            }
            if (rows.isEmpty() && i == firstNonBlank(lines) && !looksLikeTime(fields.get(2))) {
                continue; // the header
            }
            rows.add(new Row(nonEmpty(fields.get(0), "requestId", where), nonEmpty(fields.get(1), "adId", where),
                    eventTime(fields.get(2), where)));
        }
        if (rows.isEmpty()) {
            throw new InvalidOptionException("--" + InspectOptions.QUERY_FILE.key() + " " + file + " holds no query");
        }
        return rows;
    }

    /** An event time: epoch milliseconds or an ISO-8601 instant; fails naming {@code source}. */
    static long eventTime(String text, String source) {
        String trimmed = text.trim();
        try {
            return Long.parseLong(trimmed);
        } catch (NumberFormatException notMillis) {
            try {
                return OffsetDateTime.parse(trimmed).toInstant().toEpochMilli();
            } catch (DateTimeParseException notOffset) {
                try {
                    return Instant.parse(trimmed).toEpochMilli();
                } catch (DateTimeParseException e) {
                    throw new InvalidOptionException(source + ": invalid event time '" + text
                            + "': expected epoch milliseconds or an ISO-8601 instant such as 2024-05-01T12:00:00Z", e);
                }
            }
        }
    }

    private static boolean looksLikeTime(String text) {
        try {
            eventTime(text, "");
            return true;
        } catch (InvalidOptionException e) {
            return false;
        }
    }

    private static int firstNonBlank(List<String> lines) {
        int i = 0;
        while (i < lines.size() && lines.get(i).isBlank()) {
            i++;
        }
        return i;
    }

    private static String nonEmpty(String value, String field, String where) {
        if (value.isEmpty()) {
            throw new InvalidOptionException(where + ": empty " + field);
        }
        return value;
    }

    /** The comma-separated fields of a line; a field in double quotes may hold commas and {@code ""} for a quote. */
    static List<String> fields(String line, String where) {
        List<String> fields = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.length() == 0 && !wasQuoted) {
                quoted = true;
                wasQuoted = true;
            } else if (c == ',') {
                fields.add(field.toString());
                field.setLength(0);
                wasQuoted = false;
            } else if (c != '\r') {
                field.append(c);
            }
        }
        if (quoted) {
            throw new InvalidOptionException(where + ": unterminated double quote");
        }
        fields.add(field.toString());
        return fields;
    }
}
