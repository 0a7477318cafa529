package io.impressiondedup.testdata.write;

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
 * thread spends its time waiting, not computing. At {@link #close()} the last partial block is
 * padded to a whole one, written, and the file truncated to its exact length; {@link #flush()}
 * writes whole blocks only. When the file system refuses direct I/O (older tmpfs, some network and
 * FUSE file systems) at open or at a first aligned write, or the direct buffers cannot be had,
 * {@link #open} falls back to an ordinary file stream; devices and pipes are always written as they
 * are.
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
    /** Bytes written by the caller so far: the file's length after {@link #close()}. */
    private long length;
    private boolean closed;

    private DirectFileOutputStream(Path file, FileChannel channel, ByteBuffer filling, ByteBuffer writing, int blockSize) {
        this.file = file;
        this.channel = channel;
        this.blockSize = blockSize;
        this.filling = filling;
        this.writing = writing;
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
        ByteBuffer filling;
        ByteBuffer writing;
        try {
            blockSize = Math.toIntExact(Math.max(512, Files.getFileStore(file.toAbsolutePath().getParent()).getBlockSize()));
            int capacity = (Math.max(bufferBytes, blockSize) + blockSize - 1) / blockSize * blockSize;
            filling = alignedBuffer(capacity, blockSize);
            writing = alignedBuffer(capacity, blockSize);
        } catch (IOException | UnsupportedOperationException | ArithmeticException | IllegalArgumentException e) {
            return Files.newOutputStream(file);
        } catch (OutOfMemoryError e) { // direct memory is capped at the heap size: a small heap has none to spare
            return Files.newOutputStream(file);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                    ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            return Files.newOutputStream(file);
        }
        if (!acceptsAlignedWrites(channel, writing, blockSize)) {
            channel.close();
            return Files.newOutputStream(file);
        }
        return new DirectFileOutputStream(file, channel, filling, writing, blockSize);
    }

    /**
     * Some file systems accept O_DIRECT at open and refuse the writes (or want a larger alignment than
     * they report): one block written and truncated away finds out before any data is at stake.
     */
    private static boolean acceptsAlignedWrites(FileChannel channel, ByteBuffer buffer, int blockSize) {
        try {
            buffer.clear().limit(blockSize);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.truncate(0);
            channel.position(0);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            buffer.clear();
        }
    }

    private static ByteBuffer alignedBuffer(int capacity, int blockSize) {
        return ByteBuffer.allocateDirect(capacity + blockSize).alignedSlice(blockSize); // capacity: whole blocks
    }

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (!filling.hasRemaining()) {
            handOffWholeBlocks();
        }
        filling.put((byte) b);
        length++;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        length += len;
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

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("Stream to " + file + " is closed");
        }
    }

    /**
     * Writes the whole blocks gathered so far and waits for them. Unlike most streams, a partial
     * block stays buffered until more bytes complete it or {@link #close()} writes it.
     */
    @Override
    public void flush() throws IOException {
        ensureOpen();
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
        inFlight = writer.submit(() -> writeFully(full));
    }

    /** On the writer thread. */
    private Void writeFully(ByteBuffer blocks) throws IOException {
        int total = blocks.remaining();
        while (blocks.hasRemaining()) {
            int written = channel.write(blocks);
            if (blocks.hasRemaining() && written % blockSize != 0) {
                // A retry would start off the block grid and fail with an alignment error that hides this.
                throw new IOException("Short write: " + (total - blocks.remaining()) + " of " + total
                        + " bytes (is the disk full, or a file size limit reached?)");
            }
        }
        return null;
    }

    private void awaitInFlight() throws IOException {
        if (inFlight == null) {
            return;
        }
        try {
            inFlight.get();
            inFlight = null;
        } catch (InterruptedException e) {
            // inFlight stays: the write may still be running, and the next call must wait for it.
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while writing " + file);
        } catch (ExecutionException e) {
            inFlight = null;
            throw new IOException("Writing " + file + " with direct I/O failed: " + e.getCause(), e.getCause());
        }
    }

    /** Pads the last partial block with zeros, writes it, and truncates the file to the bytes written. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (FileChannel direct = channel) {
            int partial = filling.position() % blockSize;
            if (partial > 0) {
                for (int i = partial; i < blockSize; i++) {
                    filling.put((byte) 0);
                }
            }
            handOffWholeBlocks();
            awaitInFlight();
            if (partial > 0) {
                direct.truncate(length);
            }
        } finally {
            writer.shutdownNow();
        }
    }
}
