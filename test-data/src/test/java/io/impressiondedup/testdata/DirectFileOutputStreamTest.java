package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectFileOutputStreamTest {

    /** Two blocks of 4 KiB: small, so the tests cross buffer hand-offs many times. */
    static final int BUFFER = 8192;

    @TempDir
    Path dir;

    static byte[] randomBytes(int length, long seed) {
        byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 511, 4095, 4096, 4097, 8191, 8192, 8193, 3 * BUFFER + 17, 1_000_003})
    void theFileHoldsExactlyTheBytesWrittenWhateverTheirLengthAgainstTheBlockSize(int length) throws IOException {
        byte[] expected = randomBytes(length, length);
        Path file = dir.resolve("out.bin");
        SplittableRandom chunks = new SplittableRandom(7);
        try (OutputStream out = DirectFileOutputStream.open(file, BUFFER)) {
            int pos = 0;
            while (pos < length) {
                if (chunks.nextInt(4) == 0) {
                    out.write(expected[pos++]);
                } else {
                    int n = Math.min(length - pos, chunks.nextInt(3 * BUFFER));
                    out.write(expected, pos, n);
                    pos += n;
                }
            }
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    }

    @Test
    void flushWritesWholeBlocksAndCloseWritesThePartialBlockAfterThem() throws IOException {
        byte[] expected = randomBytes(3 * 4096 + 100, 1);
        Path file = dir.resolve("out.bin");
        OutputStream out = DirectFileOutputStream.open(file, BUFFER);
        out.write(expected);
        out.flush();
        long flushed = Files.size(file);
        assertThat(flushed).isLessThanOrEqualTo(expected.length);
        out.close();

        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
        if (out instanceof DirectFileOutputStream) {
            assertThat(flushed).isEqualTo(3 * 4096);
        }
    }

    @Test
    void anExistingLongerFileIsTruncated() throws IOException {
        Path file = dir.resolve("out.bin");
        Files.write(file, randomBytes(100_000, 2));
        byte[] expected = randomBytes(5000, 3);
        try (OutputStream out = DirectFileOutputStream.open(file, BUFFER)) {
            out.write(expected);
        }
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    }

    @Test
    void closingTwiceWritesTheTailOnce() throws IOException {
        Path file = dir.resolve("out.bin");
        byte[] expected = randomBytes(4096 + 10, 4);
        OutputStream out = DirectFileOutputStream.open(file, BUFFER);
        out.write(expected);
        out.close();
        out.close();
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    }
}
