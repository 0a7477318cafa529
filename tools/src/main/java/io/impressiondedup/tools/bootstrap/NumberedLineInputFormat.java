package io.impressiondedup.tools.bootstrap;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.api.common.io.FileInputFormat;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.fs.FileInputSplit;
import org.apache.flink.core.fs.Path;

/**
 * Reads a history file line by line with each line's number, streamed (a file larger than memory is
 * fine; a {@code .gz} or other compressed file Flink knows is decompressed). The file is one split, read
 * from its start, so the numbers are the file's. (Flink's {@code FileSource} lives in
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

    private transient LineReader reader;
    private transient NumberedLine next;

    NumberedLineInputFormat(String file) {
        super(new Path(file));
        this.unsplittable = true; // line numbers count from the start of the file
    }

    @Override
    public void open(FileInputSplit split) throws IOException {
        super.open(split);
        reader = new LineReader(new BufferedInputStream(stream, 1 << 16));
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

    /** The numbered lines of a stream. */
    static final class LineReader {
        private final InputStream in;
        private byte[] buffer = new byte[256];
        private long number;

        LineReader(InputStream in) {
            this.in = in;
        }

        /** The next line, or {@code null} at the end of the stream. */
        NumberedLine read() throws IOException {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            int length = 0;
            boolean tooLong = false;
            while (b >= 0 && b != '\n') {
                if (length < MAX_LINE_BYTES) {
                    if (length == buffer.length) {
                        buffer = Arrays.copyOf(buffer, Math.min(MAX_LINE_BYTES, buffer.length * 2));
                    }
                    buffer[length++] = (byte) b;
                } else {
                    tooLong = true;
                }
                b = in.read();
            }
            number++;
            if (tooLong) {
                return new NumberedLine(number, null, "the row is longer than " + MAX_LINE_BYTES + " bytes");
            }
            if (length > 0 && buffer[length - 1] == '\r') {
                length--;
            }
            try {
                String text = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(buffer, 0, length))
                        .toString();
                return new NumberedLine(number, text, null);
            } catch (CharacterCodingException e) {
                return new NumberedLine(number, null, "the row is not UTF-8 (" + e + ")");
            }
        }
    }
}
