package io.impressiondedup.tools.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.io.FileInputFormat;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.fs.FileInputSplit;
import org.apache.flink.core.fs.Path;

/**
 * Reads a history file line by line with each line's number, streamed (a file larger than memory is
 * fine; a {@code .gz} or other compressed file Flink knows is decompressed). A split is a part of the
 * file ({@link HistoryFileParts}): it begins at a line start and knows the number of its first line, so
 * subtasks read parts side by side and the numbers are the file's. (Flink's {@code FileSource} lives in
 * flink-connector-files, which this build cannot resolve; the {@link FileInputFormat} of flink-core
 * streams the same way.)
 *
 * <p>Lines end at {@code \n}, a {@code \r} before it is dropped. A line that is not UTF-8 is not decoded
 * with replacement characters, which would read distinct request ids as one identity: it comes out with
 * an error, as does a line longer than {@value #MAX_LINE_BYTES} bytes.
 */
final class NumberedLineInputFormat extends FileInputFormat<NumberedLine> implements ResultTypeQueryable<NumberedLine> {

    private static final long serialVersionUID = 1L;
    static final int MAX_LINE_BYTES = 1 << 20;

    private final HistoryFileParts parts;
    private transient LineReader reader;
    private transient NumberedLine next;

    NumberedLineInputFormat(String file, HistoryFileParts parts) {
        super(new Path(file));
        this.parts = parts;
    }

    /**
     * One split a part, in the file's order, under the file's path as its file system gives it: Flink's file source
     * matches splits to the files it lists by that path, and reads no split of a path it did not list.
     */
    @Override
    public FileInputSplit[] createInputSplits(int minNumSplits) throws IOException {
        Path file = getFilePaths()[0];
        Path listed = file.getFileSystem().getFileStatus(file).getPath();
        List<HistoryFileParts.Part> all = parts.parts();
        FileInputSplit[] splits = new FileInputSplit[all.size()];
        for (int i = 0; i < splits.length; i++) {
            HistoryFileParts.Part part = all.get(i);
            splits[i] = new FileInputSplit(i, listed, part.start(), part.length(), null);
        }
        return splits;
    }

    @Override
    public void open(FileInputSplit split) throws IOException {
        super.open(split);
        HistoryFileParts.Part part = parts.parts().get(split.getSplitNumber());
        reader = new LineReader(stream, part.firstLine(), part.length());
        next = reader.read();
    }

    @Override
    public boolean reachedEnd() {
        return next == null;
    }

    @Override
    public NumberedLine nextRecord(NumberedLine reuse) throws IOException {
        NumberedLine current = next;
        next = reader.read();
        return current;
    }

    @Override
    public TypeInformation<NumberedLine> getProducedType() {
        return Types.POJO(NumberedLine.class);
    }

    /**
     * The numbered lines of a stream, or of a part of it. It reads the stream in chunks and finds line ends by scanning
     * them (not byte by byte through a synchronized stream); an ASCII line becomes its string directly, any other is
     * decoded with one reused strict decoder. Every line of a history passes here twice (the scan, the state pass).
     */
    static final class LineReader {
        private static final int CHUNK_BYTES = 1 << 16;

        private final InputStream in;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        private final byte[] chunk = new byte[CHUNK_BYTES];
        private int chunkStart;
        private int chunkEnd;
        private boolean endOfStream;
        /** The bytes of a line that spans chunks, up to {@value #MAX_LINE_BYTES}. */
        private byte[] line = new byte[256];
        private long number;
        /** Bytes still to read of the part; -1: to the end of the stream. */
        private long remaining;

        /** The lines of a whole stream, numbered from 1. */
        LineReader(InputStream in) {
            this(in, 1, -1);
        }

        /** The lines of the next {@code length} bytes of {@code in} (-1: all of them), numbered from {@code firstLine}. */
        LineReader(InputStream in, long firstLine, long length) {
            this.in = in;
            this.number = firstLine - 1;
            this.remaining = length;
        }

        /** The next line, or {@code null} at the end of the stream. */
        NumberedLine read() throws IOException {
            if (chunkStart == chunkEnd && !fill()) {
                return null;
            }
            int length = 0;
            boolean tooLong = false;
            while (true) {
                int newline = indexOfNewline(chunk, chunkStart, chunkEnd);
                int end = newline < 0 ? chunkEnd : newline;
                int take = Math.min(end - chunkStart, MAX_LINE_BYTES - length);
                if (take < end - chunkStart) {
                    tooLong = true;
                }
                if (take > 0) {
                    if (length + take > line.length) {
                        line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(line.length * 2, length + take)));
                    }
                    System.arraycopy(chunk, chunkStart, line, length, take);
                    length += take;
                }
                if (newline >= 0) {
                    chunkStart = newline + 1;
                    break;
                }
                chunkStart = chunkEnd;
                if (!fill()) {
                    break; // the last line has no line end
                }
            }
            number++;
            if (tooLong) {
                return new NumberedLine(number, null, "the row is longer than " + MAX_LINE_BYTES + " bytes");
            }
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            if (isAscii(line, length)) { // most histories: the same string as decoded, without the decoder's buffers
                return new NumberedLine(number, new String(line, 0, length, StandardCharsets.ISO_8859_1), null);
            }
            try {
                String text = utf8.reset().decode(ByteBuffer.wrap(line, 0, length)).toString();
                return new NumberedLine(number, text, null);
            } catch (CharacterCodingException e) {
                return new NumberedLine(number, null, "the row is not UTF-8 (" + e + ")");
            }
        }

        /** Reads the next chunk; false at the end of the stream. */
        private boolean fill() throws IOException {
            while (!endOfStream) {
                int read = remaining == 0 ? -1 : in.read(chunk, 0, remaining < 0 ? chunk.length : (int) Math.min(chunk.length, remaining));
                if (read < 0) {
                    endOfStream = true;
                } else if (read > 0) {
                    chunkStart = 0;
                    chunkEnd = read;
                    if (remaining > 0) {
                        remaining -= read;
                    }
                    return true;
                }
            }
            return false;
        }

        private static boolean isAscii(byte[] bytes, int length) {
            for (int i = 0; i < length; i++) {
                if (bytes[i] < 0) {
                    return false;
                }
            }
            return true;
        }

        private static int indexOfNewline(byte[] bytes, int from, int to) {
            for (int i = from; i < to; i++) {
                if (bytes[i] == '\n') {
                    return i;
                }
            }
            return -1;
        }
    }
}
