package io.impressiondedup.tools.bootstrap;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.api.common.io.FileInputFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * The parts a history file is read in, so that the bootstrap job's subtasks read it side by side and still number its
 * lines as the file does (a bad row is reported by its line): byte ranges that each begin at a line start, with the
 * number of their first line. One scan of the file in the tool's JVM finds them, its parts read in parallel threads; the
 * same scan finds the newest timestamp of the history's impressions (the first pass of {@link BootstrapCommand}), read
 * by the rules the state pass reads rows with ({@link NumberedLineInputFormat}, {@link HistoryRowParser}).
 *
 * <p><b>Why.</b> A file read as one split is read by one task, and in batch execution that task runs before the tasks
 * that parse its lines, which then read them back from a shuffle: at 10M rows the reading took 5 of the 28 s, the
 * shuffle a third of the parsing, and the first pass, on one thread, 5 s more. Read in parts, the reading is chained to
 * the parsing on every subtask.
 *
 * <p>A compressed file (an extension Flink decompresses) is one part: a compressed stream is read from its start.
 */
final class HistoryFileParts implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The most bytes of a part, about: parts balance between subtasks, and are few. */
    static final long MAX_PART_BYTES = 64L << 20;
    /** Parts per subtask at least, so that a small file is read side by side too. */
    static final int MIN_PARTS_PER_SUBTASK = 4;

    /**
     * Bytes {@code start} to {@code start + length} of the file ({@code length} -1: to its end), whose first line is line
     * {@code firstLine} of the file.
     */
    record Part(long start, long length, long firstLine) implements Serializable {}

    private final List<Part> parts;
    private final Long newest;
    private final long rows;

    private HistoryFileParts(List<Part> parts, Long newest, long rows) {
        this.parts = List.copyOf(parts);
        this.newest = newest;
        this.rows = rows;
    }

    List<Part> parts() {
        return parts;
    }

    /** The file's lines but a header: the rows the state pass must read, every one an impression or a bad row. */
    long rows() {
        return rows;
    }

    /** The newest event time of the file's impressions, if the scan looked for it and found one; else {@code null}. */
    Long newest() {
        return newest;
    }

    /** The bytes of a part of a file of {@code fileBytes} read by {@code subtasks}: at most {@link #MAX_PART_BYTES}. */
    static long partBytes(long fileBytes, int subtasks) {
        long parts = (long) MIN_PARTS_PER_SUBTASK * Math.max(1, subtasks);
        return Math.max(1, Math.min(MAX_PART_BYTES, (fileBytes + parts - 1) / parts));
    }

    /** A part size that {@link #scan} takes from the file's size ({@link #partBytes}). */
    static final long BY_SIZE = 0;

    /**
     * Scans {@code file} in parts of about {@code partBytes} ({@link #BY_SIZE}: {@link #partBytes} for {@code threads}
     * subtasks), with {@code threads} threads; reads each line's time, by the rules of {@code minEventTime}, if {@code
     * findNewest}.
     */
    static HistoryFileParts scan(String file, Instant minEventTime, long partBytes, int threads, boolean findNewest) throws IOException {
        Path path = new Path(file);
        FileSystem fs = path.getFileSystem();
        long size = fs.getFileStatus(path).getLen();
        long bytesPerPart = partBytes == BY_SIZE ? partBytes(size, threads) : partBytes;
        List<Part> unnumbered = isCompressed(file) ? List.of(new Part(0, -1, 1)) : lineAlignedParts(fs, path, size, bytesPerPart);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, unnumbered.size())), runnable -> {
            Thread thread = new Thread(runnable, "bootstrap: scan of " + file);
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<PartScan>> scans = new ArrayList<>();
            for (Part part : unnumbered) {
                scans.add(pool.submit(() -> scanPart(file, part, minEventTime, findNewest)));
            }
            List<Part> numbered = new ArrayList<>();
            long nextLine = 1;
            long headers = 0;
            Long newest = null;
            for (int i = 0; i < unnumbered.size(); i++) {
                PartScan scan = scans.get(i).get();
                Part part = unnumbered.get(i);
                numbered.add(new Part(part.start(), part.length(), nextLine));
                nextLine += scan.lines;
                headers += scan.header ? 1 : 0;
                if (scan.newest != null && (newest == null || scan.newest > newest)) {
                    newest = scan.newest;
                }
            }
            return new HistoryFileParts(numbered, newest, nextLine - 1 - headers);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("Cannot scan " + file, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while scanning " + file, e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Whether Flink reads {@code file} through a decompressor, by its extension. */
    static boolean isCompressed(String file) {
        int dot = file.lastIndexOf('.');
        return dot >= 0 && FileInputFormat.getSupportedCompressionFormats().contains(file.substring(dot + 1).toLowerCase(Locale.ROOT));
    }

    /**
     * Parts of about {@code partBytes}, each beginning just after a line end (the first at 0), none empty: a part's nominal
     * start moves on to the next line start, so a line longer than a part merges parts.
     */
    private static List<Part> lineAlignedParts(FileSystem fs, Path path, long size, long partBytes) throws IOException {
        List<Long> starts = new ArrayList<>();
        starts.add(0L);
        try (FSDataInputStream in = fs.open(path)) {
            for (long nominal = partBytes; nominal < size; nominal += partBytes) {
                long start = lineStartAtOrAfter(in, nominal);
                if (start > starts.get(starts.size() - 1) && start < size) {
                    starts.add(start);
                }
            }
        }
        List<Part> parts = new ArrayList<>();
        for (int i = 0; i < starts.size(); i++) {
            long end = i + 1 < starts.size() ? starts.get(i + 1) : size;
            // Numbered for the scan only, where a number tells nothing but whether a line is the first (a header may be).
            parts.add(new Part(starts.get(i), end - starts.get(i), i == 0 ? 1 : 2));
        }
        return parts;
    }

    /** The first position at or after {@code position} that begins a line: just after a {@code \n}; the file's size if none. */
    private static long lineStartAtOrAfter(FSDataInputStream in, long position) throws IOException {
        in.seek(position - 1);
        long at = position - 1;
        byte[] buffer = new byte[8192];
        while (true) {
            int read = in.read(buffer);
            if (read < 0) {
                return at;
            }
            for (int i = 0; i < read; i++) {
                if (buffer[i] == '\n') {
                    return at + i + 1;
                }
            }
            at += read;
        }
    }

    private record PartScan(long lines, boolean header, Long newest) {}

    private static PartScan scanPart(String file, Part part, Instant minEventTime, boolean findNewest) throws IOException {
        NumberedLineInputFormat format = new NumberedLineInputFormat(file, new HistoryFileParts(List.of(part), null, 0));
        format.configure(new org.apache.flink.configuration.Configuration());
        HistoryRowParser parser = new HistoryRowParser(minEventTime);
        long lines = 0;
        boolean header = false;
        Long newest = null;
        format.open(format.createInputSplits(1)[0]);
        try {
            while (!format.reachedEnd()) {
                NumberedLine line = format.nextRecord(null);
                lines++;
                if ((findNewest || line.number == 1) && line.text != null) {
                    HistoryRowParser.Row row = parser.parse(line.number, line.text);
                    header |= row.header();
                    if (findNewest && row.isImpression() && (newest == null || row.eventTime() > newest)) {
                        newest = row.eventTime();
                    }
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } finally {
            format.close();
        }
        return new PartScan(lines, header, newest);
    }
}
