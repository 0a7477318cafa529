package io.impressiondedup.local;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The complete lines a log file gains, read a few bytes at a time: a test that reacts to what a cluster logs (a
 * checkpoint triggered, completed, a job restarting) sees each line once, in order, within milliseconds of its writing,
 * without re-reading the file. A line still being written is returned once its newline is there.
 */
final class LogFollower implements AutoCloseable {

    private final RandomAccessFile file;
    private final StringBuilder pending = new StringBuilder();
    private long position;

    /** Follows {@code log} from its current end: only lines written after this call. */
    static LogFollower fromNow(Path log) throws IOException {
        LogFollower follower = new LogFollower(log);
        follower.position = follower.file.length();
        return follower;
    }

    /** Follows {@code log} from its first line. */
    static LogFollower fromStart(Path log) throws IOException {
        return new LogFollower(log);
    }

    private LogFollower(Path log) throws IOException {
        this.file = new RandomAccessFile(log.toFile(), "r");
    }

    /** The complete lines written since the last call (or since the position this follower started from). */
    List<String> newLines() throws IOException {
        long length = file.length();
        if (length > position) {
            byte[] bytes = new byte[Math.toIntExact(length - position)];
            file.seek(position);
            file.readFully(bytes);
            position = length;
            pending.append(new String(bytes, StandardCharsets.ISO_8859_1));
        }
        List<String> lines = new ArrayList<>();
        int end;
        while ((end = pending.indexOf("\n")) >= 0) {
            lines.add(pending.substring(0, end));
            pending.delete(0, end + 1);
        }
        return lines;
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
