package io.impressiondedup.testdata.write;

import java.io.IOException;
import java.io.PrintStream;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.ImpressionGenerator;

/**
 * Runs a generator into a destination and a ground-truth file, at an optional rate, printing a
 * progress line every few seconds. Returns how many records of each class were written. It writes
 * {@code total} records, or fewer if the generator ends first; a second call continues the same stream.
 */
public final class Generation {

    private static final long PROGRESS_INTERVAL_NANOS = 2_000_000_000L;
    /** The clock is read for progress every 4,096 records, not per record. */
    private static final long PROGRESS_CHECK_MASK = 4096 - 1;

    private Generation() {}

    public static Map<RecordClass, Long> run(
            ImpressionGenerator generator,
            long total,
            RecordDestination destination,
            GroundTruthWriter truth,
            double recordsPerSecond,
            PrintStream progress)
            throws IOException {
        long[] countsByClass = new long[RecordClass.values().length];
        long start = System.nanoTime();
        long lastProgress = start;
        long written = 0;
        while (written < total && generator.hasNext()) {
            GeneratedRecord record = generator.next();
            destination.write(record);
            truth.write(record);
            countsByClass[record.recordClass.ordinal()]++;
            written++;
            if (recordsPerSecond > 0) {
                long due = start + (long) (written / recordsPerSecond * 1e9);
                long wait = due - System.nanoTime();
                if (wait > 1_000_000) {
                    sleep(wait);
                }
            }
            if ((written & PROGRESS_CHECK_MASK) != 0) {
                continue;
            }
            long now = System.nanoTime();
            if (progress != null && now - lastProgress >= PROGRESS_INTERVAL_NANOS) {
                lastProgress = now;
                progress.printf(Locale.ROOT, "generated %,d / %,d records (%.1f%%) at %,.0f records/s%n",
                        written, total, 100.0 * written / total, written / ((now - start) / 1e9));
            }
        }
        destination.flush();
        if (progress != null) {
            double seconds = (System.nanoTime() - start) / 1e9;
            progress.printf(Locale.ROOT, "generated %,d records to %s in %.1f s (%,.0f records/s)%n",
                    written, destination.describe(), seconds, written / seconds);
        }
        Map<RecordClass, Long> counts = new EnumMap<>(RecordClass.class);
        for (RecordClass recordClass : RecordClass.values()) {
            if (countsByClass[recordClass.ordinal()] > 0) {
                counts.put(recordClass, countsByClass[recordClass.ordinal()]);
            }
        }
        return counts;
    }

    private static void sleep(long nanos) throws IOException {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while rate limiting", e);
        }
    }
}
