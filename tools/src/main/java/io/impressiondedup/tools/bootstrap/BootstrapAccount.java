package io.impressiondedup.tools.bootstrap;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The account of a bootstrap, kept in Flink accumulators (live while it runs, final in the job result):
 * {@code rows = bad + expired + inserted + duplicates}; inserted is read back from the written state, where rows counts every row or record read but a
 * header. Bad rows are also sampled with their line number (file) or topic/partition/offset (topic).
 */
final class BootstrapAccount {

    static final String ROWS = "history-rows";
    static final String BAD = "history-bad";
    static final String EXPIRED = "history-expired";
    static final String BAD_SAMPLES = "history-bad-samples";
    /** Bad rows reported by name per subtask; the rest are counted. */
    static final int MAX_BAD_SAMPLES = 20;

    private final Map<String, Object> accumulators;
    /** Impressions in the written state ({@link DirectoryInsertCount}), or -1 while it is being written. */
    private final long inserted;

    BootstrapAccount(Map<String, Object> accumulators, long inserted) {
        this.accumulators = accumulators;
        this.inserted = inserted;
    }

    /** Rows passed to the state writer: neither bad nor expired. */
    long toWrite() {
        return count(ROWS) - count(BAD) - count(EXPIRED);
    }

    long count(String name) {
        Object value = accumulators.get(name);
        return value instanceof Number ? ((Number) value).longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    List<String> badSamples() {
        Object value = accumulators.get(BAD_SAMPLES);
        return value instanceof List ? (List<String>) value : new ArrayList<>();
    }

    /**
     * One progress line, with {@code written}, the rows the state writers have taken so far (inserted, or found as
     * copies): the writing goes on after the last row is read, as the rows of a shard are written in batches.
     */
    String progress(long written) {
        return String.format(Locale.ROOT,
                "bootstrap: %,d rows read: %,d to write (%,d written), %,d expired at --as-of, %,d bad",
                count(ROWS), toWrite(), written, count(EXPIRED), count(BAD));
    }

    /** The final summary. */
    String summary(String output, HistoryHorizon horizon) {
        StringBuilder sb = new StringBuilder();
        sb.append("Bootstrap savepoint written: ").append(output).append('\n');
        sb.append(String.format(Locale.ROOT, "  rows read            %,d%n", count(ROWS)));
        sb.append(String.format(Locale.ROOT, "  inserted             %,d%n", inserted));
        sb.append(String.format(Locale.ROOT, "  duplicates (skipped) %,d   copies of an impression already inserted%n", toWrite() - inserted));
        sb.append(String.format(Locale.ROOT, "  expired (skipped)    %,d   before %s: their buckets are dropped at --as-of %s%n",
                count(EXPIRED), Instant.ofEpochMilli(horizon.oldestKeptTime()), Instant.ofEpochMilli(horizon.asOf())));
        sb.append(String.format(Locale.ROOT, "  bad (skipped)        %,d%n", count(BAD)));
        return sb.toString();
    }
}
