package io.impressiondedup.testdata.write;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import io.impressiondedup.testdata.Digits;

/**
 * A buffered stream for one writing thread. {@code java.io.BufferedOutputStream} synchronizes every
 * {@code write(int)}; the generator writes ids and CSV rows a byte at a time, and those locks cost
 * more than everything else it does.
 */
final class UnsynchronizedBufferedOutputStream extends OutputStream {

    private final OutputStream out;
    private final byte[] buffer;
    private int count;

    UnsynchronizedBufferedOutputStream(OutputStream out, int size) {
        this.out = out;
        this.buffer = new byte[size];
    }

    /**
     * Creates (or truncates) {@code file} and its missing parent directories, written with direct I/O
     * where the file system allows (see {@link DirectFileOutputStream}).
     */
    static UnsynchronizedBufferedOutputStream toNewFile(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new UnsynchronizedBufferedOutputStream(DirectFileOutputStream.open(file, 8 << 20), 1 << 20);
    }

    @Override
    public void write(int b) throws IOException {
        if (count == buffer.length) {
            drain();
        }
        buffer[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        if (len >= buffer.length) {
            drain();
            out.write(b, off, len);
            return;
        }
        if (len > buffer.length - count) {
            drain();
        }
        System.arraycopy(b, off, buffer, count, len);
        count += len;
    }

    /** Writes an ASCII string (every char below 0x80) one byte per char. */
    void writeAscii(String s) throws IOException {
        int n = s.length();
        if (n > buffer.length - count) {
            drain();
            if (n > buffer.length) {
                out.write(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                return;
            }
        }
        for (int i = 0; i < n; i++) {
            buffer[count++] = (byte) s.charAt(i);
        }
    }

    /** Writes a long in decimal, without allocating. */
    void writeDecimal(long value) throws IOException {
        if (buffer.length - count < 20) {
            drain();
        }
        count = Digits.write(value, buffer, count);
    }

    private void drain() throws IOException {
        if (count > 0) {
            out.write(buffer, 0, count);
            count = 0;
        }
    }

    @Override
    public void flush() throws IOException {
        drain();
        out.flush();
    }

    @Override
    public void close() throws IOException {
        try {
            flush();
        } finally {
            out.close();
        }
    }
}
