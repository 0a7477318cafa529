package io.impressiondedup.testdata;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a new file with direct I/O (O_DIRECT), past the page cache.
 *
 * <p><b>Why.</b> The generator writes gigabytes that nobody reads back soon (10M records are 4.7 GB of
 * JSONL and 0.8 GB of ground truth). Through the page cache every byte is copied into a freshly
 * allocated cache page and written back later; measured on the 2-core VM this project is built on,
 * that cost 2.4 s of system CPU per GB (dd, 5 GB: 12.6 s buffered, 0.37 s with O_DIRECT): as much
 * CPU as generating the records. On a host that also runs Kafka or Flink, it would also push their
 * hot pages out of the cache.
 *
 * <p><b>How.</b> O_DIRECT requires buffer address, file offset and length to be multiples of the file
 * system's block size, so bytes gather in an aligned direct buffer. A direct write does not return
 * until the device has the data (a few milliseconds per 8 MiB here), so a full buffer is handed to a
 * writer thread while the caller fills a second one: generating and writing overlap, and the writer
 * thread spends its time waiting, not computing. The unaligned tail (less than one block) is written
 * at {@link #close()} through an ordinary channel; {@link #flush()} writes whole blocks only. When
 * the file system refuses direct I/O (older tmpfs, some network and FUSE file systems) at open or
 * at a first aligned write, {@link #open} falls back to an ordinary file stream.
 */
final class DirectFileOutputStream extends OutputStream {

    private final Path file;
    private final FileChannel channel;
    private final int blockSize;
    /** One daemon thread that writes a full buffer while the caller fills the other. */
    private final ExecutorService writer;
    private ByteBuffer filling;
    private ByteBuffer writing;
    private Future<?> inFlight;
    private boolean closed;

    private DirectFileOutputStream(Path file, FileChannel channel, int capacity, int blockSize) {
        this.file = file;
        this.channel = channel;
        this.blockSize = blockSize;
        this.filling = alignedBuffer(capacity, blockSize);
        this.writing = alignedBuffer(capacity, blockSize);
        this.writer = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "direct-write " + file.getFileName());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Creates or truncates {@code file} for writing, with direct I/O where the file system supports
     * it and two buffers of {@code bufferBytes} (rounded up to whole blocks).
     */
    static OutputStream open(Path file, int bufferBytes) throws IOException {
        if (Files.exists(file) && !Files.isRegularFile(file)) { // /dev/null, /dev/stdout, a named pipe: as they are
            return Files.newOutputStream(file);
        }
        int blockSize;
        FileChannel channel;
        try {
            blockSize = Math.toIntExact(Math.max(512, Files.getFileStore(file.toAbsolutePath().getParent()).getBlockSize()));
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                    ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException | ArithmeticException e) {
            return Files.newOutputStream(file);
        }
        if (!acceptsAlignedWrites(channel, blockSize)) {
            channel.close();
            return Files.newOutputStream(file);
        }
        int capacity = (Math.max(bufferBytes, blockSize) + blockSize - 1) / blockSize * blockSize;
        return new DirectFileOutputStream(file, channel, capacity, blockSize);
    }

    /**
     * Some file systems accept O_DIRECT at open and refuse the writes (or want a larger alignment than
     * they report): one block written and truncated away finds out before any data is at stake.
     */
    private static boolean acceptsAlignedWrites(FileChannel channel, int blockSize) {
        try {
            ByteBuffer block = alignedBuffer(blockSize, blockSize);
            while (block.hasRemaining()) {
                channel.write(block);
            }
            channel.truncate(0);
            channel.position(0);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static ByteBuffer alignedBuffer(int capacity, int blockSize) {
        return ByteBuffer.allocateDirect(capacity + blockSize).alignedSlice(blockSize); // capacity: whole blocks
    }

    @Override
    public void write(int b) throws IOException {
        if (!filling.hasRemaining()) {
            handOffWholeBlocks();
        }
        filling.put((byte) b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (!filling.hasRemaining()) {
                handOffWholeBlocks();
            }
            int n = Math.min(len, filling.remaining());
            filling.put(b, off, n);
            off += n;
            len -= n;
        }
    }

    /** Writes the whole blocks gathered so far and waits for them; a partial block stays for later. */
    @Override
    public void flush() throws IOException {
        handOffWholeBlocks();
        awaitInFlight();
    }

    /**
     * Hands the whole blocks of the filling buffer to the writer thread, once it is done with the
     * previous ones, and carries the partial block over into the other buffer, which fills next.
     */
    private void handOffWholeBlocks() throws IOException {
        int gathered = filling.position();
        int whole = gathered / blockSize * blockSize;
        if (whole == 0) {
            return;
        }
        awaitInFlight();
        ByteBuffer full = filling;
        full.flip().position(whole);
        writing.clear();
        writing.put(full);
        full.position(0).limit(whole);
        filling = writing;
        writing = full;
        inFlight = writer.submit(() -> {
            while (full.hasRemaining()) {
                channel.write(full);
            }
            return null;
        });
    }

    private void awaitInFlight() throws IOException {
        if (inFlight == null) {
            return;
        }
        try {
            inFlight.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while writing " + file);
        } catch (ExecutionException e) {
            throw new IOException("Writing " + file + " with direct I/O failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            inFlight = null;
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (FileChannel direct = channel) {
            handOffWholeBlocks();
            awaitInFlight();
        } finally {
            writer.shutdownNow();
        }
        if (filling.position() > 0) {
            filling.flip();
            try (FileChannel tail = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                while (filling.hasRemaining()) {
                    tail.write(filling);
                }
            }
        }
    }
}
