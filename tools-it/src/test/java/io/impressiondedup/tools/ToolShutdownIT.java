package io.impressiondedup.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a tool's JVM leaves running when it exits. A verb's jobs run on MiniClusters that shut down after each job's
 * result is known, on threads of their own; a JVM that exited meanwhile ran the shutdown hook of an actor system still
 * up, which loaded classes from the shared RPC system's class loader while that system's own hook closed it: a 50M-row
 * bootstrap ended with "Exception in thread "flink-shutdown-hook-1" java.lang.NoClassDefFoundError:
 * scala/collection/convert/Wrappers$MutableSetWrapper". {@link DedupTools#main} now waits for them first.
 */
class ToolShutdownIT {

    @TempDir
    Path dir;

    @Test
    void aVerbsMiniClustersAreAllShutDownBeforeTheToolExits() throws Exception {
        Path history = Files.write(dir.resolve("history.csv"), List.of("requestId,adId,timestamp",
                "r-1,ad-1,1796400000000", "r-2,ad-1,1796400001000", "r-3,ad-2,1796400002000"), StandardCharsets.UTF_8);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(new String[] {"bootstrap", "--from-file", history.toString(), "--output",
                dir.resolve("sp").toString(), "--capacity", "1000", "--state-backend", "hashmap", "--parallelism", "1"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();

        assertThat(ToolEnvironment.awaitShutdown(Duration.ofMinutes(1))).as("every MiniCluster shut down within a minute")
                .isTrue();

        assertThat(ToolEnvironment.clustersNotShutDown()).as("MiniClusters the verb started, not known to be down").isZero();
    }
}
