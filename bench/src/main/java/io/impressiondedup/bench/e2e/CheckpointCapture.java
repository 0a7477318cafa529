package io.impressiondedup.bench.e2e;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.OptionalLong;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

/**
 * Keeps a copy of each checkpoint's {@code _metadata} as it completes, because Flink discards the
 * checkpoints of a job that has finished, the last one included, right after it finishes; the
 * size of the state comes from the handles in the last one. For an incremental RocksDB checkpoint
 * that size covers every file it references, shared ones included, as Flink's own "checkpointed
 * data size" in the web UI's "full" column does.
 */
final class CheckpointCapture implements AutoCloseable {

    private static final String METADATA = "_metadata";

    private final Path checkpointDir;
    private final Path copies;
    private final Thread poller;
    private volatile boolean running = true;
    private long highestSeen = -1;
    private long highestCaptured = -1;
    /** The kinds of keyed-state handles in the last checkpoint (full or incremental), for the log. */
    String keyedStateKinds = "";

    CheckpointCapture(Path checkpointDir, Path copies) throws IOException {
        this.checkpointDir = checkpointDir;
        this.copies = Files.createDirectories(copies);
        this.poller = new Thread(this::poll, "checkpoint-capture");
        poller.setDaemon(true);
        poller.start();
    }

    private void poll() {
        while (running) {
            scan();
            try {
                Thread.sleep(20);
            } catch (InterruptedException stop) {
                return;
            }
        }
    }

    private synchronized void scan() {
        if (!Files.isDirectory(checkpointDir)) {
            return;
        }
        try (DirectoryStream<Path> jobs = Files.newDirectoryStream(checkpointDir)) {
            for (Path job : jobs) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(job, "chk-*")) {
                    for (Path chk : entries) {
                        long id = Long.parseLong(chk.getFileName().toString().substring(4));
                        highestSeen = Math.max(highestSeen, id);
                        Path metadata = chk.resolve(METADATA);
                        if (id > highestCaptured && Files.exists(metadata)) {
                            Path copy = Files.createDirectories(copies.resolve("chk-" + id));
                            Files.copy(metadata, copy.resolve(METADATA), StandardCopyOption.REPLACE_EXISTING);
                            highestCaptured = id;
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException vanishedWhileReading) {
            // A checkpoint being written or discarded right now: the next scan sees it settled.
        }
    }

    /**
     * The state size of the last checkpoint, or empty if a later one was started but not captured
     * (then the figure would understate the state, and none is reported).
     */
    synchronized OptionalLong lastStateBytes() throws IOException {
        if (highestCaptured < 0 || highestSeen > highestCaptured) {
            return OptionalLong.empty();
        }
        // State handles may be relative to the checkpoint's directory: the copy's stands in for it (sizes need no file).
        Path copy = copies.resolve("chk-" + highestCaptured);
        try (InputStream in = Files.newInputStream(copy.resolve(METADATA))) {
            CheckpointMetadata metadata = Checkpoints.loadCheckpointMetadata(new DataInputStream(in),
                    CheckpointCapture.class.getClassLoader(), copy.toString());
            keyedStateKinds = metadata.getOperatorStates().stream()
                    .flatMap(operator -> operator.getStates().stream())
                    .flatMap(subtask -> subtask.getManagedKeyedState().stream())
                    .map(handle -> handle.getClass().getSimpleName())
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new)).toString();
            return OptionalLong.of(metadata.getOperatorStates().stream().mapToLong(OperatorState::getStateSize).sum());
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        poller.interrupt();
        poller.join();
        scan();
    }
}
