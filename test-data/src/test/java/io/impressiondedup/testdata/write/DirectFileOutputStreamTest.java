package io.impressiondedup.testdata.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
                int choice = chunks.nextInt(8);
                if (choice == 0) {
                    out.flush(); // leaves a partial block to be carried over and completed later
                } else if (choice < 3) {
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
    void directIoIsUsedUnlessTheFileSystemRefusesIt() throws IOException {
        Path file = dir.resolve("out.bin");
        try (OutputStream out = DirectFileOutputStream.open(file, BUFFER)) {
            if (out instanceof DirectFileOutputStream) {
                return;
            }
        }
        // The fallback was taken: only right if this file system really refuses an aligned direct write.
        assertThatThrownBy(() -> {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)) {
                channel.write(ByteBuffer.allocateDirect(2 * 65536).alignedSlice(65536));
            }
        }).isInstanceOfAny(IOException.class, UnsupportedOperationException.class);
    }

    @Test
    void writingAfterCloseFailsInsteadOfDroppingTheBytes() throws IOException {
        Path file = dir.resolve("out.bin");
        OutputStream out = DirectFileOutputStream.open(file, BUFFER);
        out.write(randomBytes(10, 5));
        out.close();
        assertThatThrownBy(() -> out.write(1)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> out.write(new byte[3])).isInstanceOf(IOException.class);
        assertThat(Files.size(file)).isEqualTo(10);
    }

    @Test
    void devicesAreWrittenAsTheyAre() throws IOException {
        Path devNull = Path.of("/dev/null");
        assumeTrue(Files.exists(devNull));
        try (OutputStream out = DirectFileOutputStream.open(devNull, BUFFER)) {
            assertThat(out).isNotInstanceOf(DirectFileOutputStream.class);
            out.write(randomBytes(5000, 6));
        }
        assertThat(Files.exists(devNull)).isTrue();
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
