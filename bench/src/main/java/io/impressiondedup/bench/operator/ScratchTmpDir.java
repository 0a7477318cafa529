package io.impressiondedup.bench.operator;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.util.FileUtils;

/**
 * Runs a benchmark with {@code java.io.tmpdir} pointed at a directory of its own, deleted afterwards: Flink's operator
 * test harness creates its I/O directories there ({@code tmp_<uuid>}), and RocksDB extracts its native library into one
 * of them; closing the harness removes neither, so each run left a directory of about 10 MB behind.
 */
final class ScratchTmpDir {

    private ScratchTmpDir() {}

    /** What runs inside the scratch directory. */
    interface Body {
        void run() throws Exception;
    }

    static void run(Body body) throws Exception {
        Path dir = Files.createTempDirectory("impression-dedup-bench-");
        String tmpdir = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", dir.toString());
        try {
            body.run();
        } finally {
            System.setProperty("java.io.tmpdir", tmpdir);
            FileUtils.deleteDirectory(dir.toFile());
        }
    }
}
