package io.impressiondedup.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.operators.dedup.keys.ShardKeys;
import io.impressiondedup.state.BucketFilters;
import io.impressiondedup.state.StateFormat;
import io.impressiondedup.state.fingerprints.FingerprintBucket;
import io.impressiondedup.state.fingerprints.FingerprintPage;
import io.impressiondedup.state.fingerprints.FingerprintPart;
import io.impressiondedup.state.fingerprints.FingerprintStoreSizing;
import io.impressiondedup.state.identity.FingerprintScheme;
import io.impressiondedup.state.plan.DedupPlan;
import io.impressiondedup.tools.savepoint.DedupSavepoint;
import io.impressiondedup.tools.savepoint.DedupSavepointWriter;
import io.impressiondedup.tools.savepoint.FingerprintState;
import io.impressiondedup.tools.savepoint.ShardEntry;
import io.impressiondedup.tools.savepoint.StateFunctionFailure;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.layout.PatternLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failure inside a tool's Flink job ends the tool: exit 1, the cause in one line (the reader's or writer's own
 * exception), nothing of Flink's log unless {@code --verbose}. A hang shows as the JUnit timeout (minutes; a run takes
 * seconds). Each failure comes from real input or configuration, through the production code: no test hook.
 */
class ToolFailureIT {

    private static final long DAY = 86_400_000L;
    /** A line of the tools' log layout ({@code log4j2.properties}): time, level, logger. */
    private static final Pattern LOG_LINE = Pattern.compile("(?m)^\\d\\d:\\d\\d:\\d\\d (TRACE|DEBUG|INFO|WARN|ERROR) ");

    @TempDir
    Path dir;

    /**
     * The writer throws: a corrupt savepoint holds, beside a bucket in two parts, a section of that bucket at a page key
     * none of its parts has; reshaped to twice the shards, it meets the section of the part that moves to that key, and
     * the state writer refuses to put two sections of one bucket and band at one key. Flink's State Processor API drops a
     * writer's exception and its task then waits forever for the writer to take the rest of its elements. Run as users
     * run it ({@code java -jar}, the jar's log configuration): the JVM ends, with one line, no log line, no stack trace.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aStateWriterThatThrowsEndsTheToolWithItsMessageOnlyAndLeavesNoSavepoint() throws Exception {
        String savepoint = savepointWithASectionOfNoPartBesideTheOneThatMovesToItsKey();
        Path output = dir.resolve("after");

        Run run = runJar("reshape", "--savepoint", savepoint, "--output", output.toString(), "--shards", "16", "--state-backend", "hashmap",
                "--parallelism", "1");

        assertThat(run.exit).as(run.stderr).isEqualTo(1);
        assertThat(run.stderr).contains("reshape failed: writing the dedup state failed in subtask 1 of 1")
                .contains("Two sections of bucket 20000, band 0 at page key " + FingerprintBucket.pageKey(10, 3) + " of shard ") // 0 or 1: both meet it
                .contains("--verbose prints the stack trace");
        assertThat(LOG_LINE.matcher(run.stderr).find()).as("a log line in:%n%s", run.stderr).isFalse();
        assertThat(run.stderr).as("no stack trace").doesNotContain("\tat ");
        assertThat(run.stdout).isEmpty();
        assertThat(output).as("the incomplete savepoint is removed").doesNotExist();
    }

    /**
     * The writer throws with fewer elements left than the State Processor API's queue holds: its task then finishes as if
     * nothing happened and Flink writes a savepoint without that writer's state.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aStateWriterThatThrowsNearTheEndOfItsInputFailsTheRunInsteadOfWritingAnIncompleteSavepoint() throws Exception {
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), 4)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(
                        ShardEntry.directory(0, new BucketFilters()), ShardEntry.directory(0, new BucketFilters())),
                        new ShardKeys(4, 4), 0L, null, null))
                .write(dir.resolve("written").toString());

        assertThatThrownBy(() -> ToolEnvironment.execute(env, "write")).isInstanceOf(StateFunctionFailure.class)
                .hasMessage("writing the dedup state failed in subtask 1 of 1")
                .cause().hasMessage("Two bucket directories for shard 0");
    }

    /**
     * Flink's code around the writer fails, not the writer: RocksDB cannot start where it is told to keep its files. The
     * State Processor API drops that failure too, and the task waits forever for the writer to take more elements; the
     * run fails with that failure, as Flink's clean-up of the task logged it.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aStateBackendThatCannotStartUnderTheWriterFailsTheRun() throws Exception {
        int shards = 8;
        FingerprintState state = new FingerprintState(plan(shards, 4_000));
        for (int i = 0; i < 2_000; i++) {
            state.insert("request-" + i, "ad", 20_000 * DAY + i * 10_000L);
        }
        assertThat(state.entries()).as("more entries than the State Processor API's queue of 16 takes").hasSizeGreaterThan(16);
        EmbeddedRocksDBStateBackend rocksDb = new EmbeddedRocksDBStateBackend();
        rocksDb.setDbStoragePath(Files.writeString(dir.resolve("a-file"), "not a directory").toString());
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, rocksDb, shards)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(state.entries()),
                        new ShardKeys(shards, shards), 0L, null, null))
                .write(dir.resolve("written").toString());

        assertThatThrownBy(() -> ToolEnvironment.execute(env, "write")).isInstanceOf(StateFunctionFailure.class)
                .hasMessageStartingWith("the task of subtask 1 of the dedup state writer failed around the writer: ")
                .hasMessageContaining("a-file");
    }

    /**
     * The reader throws: the savepoint holds state under a key that is no shard key of its own shard count. With
     * --verbose (run in this JVM, its log captured): the reader's message, its stack trace, and Flink's log at INFO.
     */
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aStateReaderThatThrowsFailsTheToolWithItsMessageAndVerboseAddsTheStackTraceAndFlinksLog() throws Exception {
        String savepoint = savepointWithKeysOfAnotherMaxParallelism();
        StringWriter log = new StringWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int exit;
        try (LogCapture capture = LogCapture.of(log)) { // ToolLog raises the levels of whatever configuration it finds
            exit = DedupTools.run(new String[] {"inspect", "--savepoint", savepoint, "--state-backend", "hashmap", "--parallelism", "2",
                "--verbose"}, new PrintStream(out), new PrintStream(err));
        }

        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(stderr).isEqualTo(1);
        assertThat(stderr).contains("inspect failed: reading the dedup state failed in subtask ")
                .contains("is not a shard key of ShardKeys{shards=8, maxParallelism=8}")
                .contains("\tat io.impressiondedup.operators.dedup.keys.ShardKeys.shardOf");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(log.toString()).as("Flink's log at INFO").contains("INFO MiniCluster Starting Flink Mini Cluster");
    }

    /** Everything logged while open, by a root appender added to the configuration of the moment (a reconfiguration drops it). */
    private static final class LogCapture implements AutoCloseable {

        private final Appender appender;

        private LogCapture(Appender appender) {
            this.appender = appender;
        }

        static LogCapture of(StringWriter target) {
            Appender appender = WriterAppender.newBuilder().setName("captured").setTarget(target)
                    .setLayout(PatternLayout.newBuilder().withPattern("%p %c{1} %m%n").build()).build();
            appender.start();
            ((org.apache.logging.log4j.core.Logger) LogManager.getRootLogger()).addAppender(appender);
            return new LogCapture(appender);
        }

        @Override
        public void close() {
            ((org.apache.logging.log4j.core.Logger) LogManager.getRootLogger()).removeAppender(appender);
            appender.stop();
        }
    }

    /**
     * 8 shards; shard 0 holds bucket 20000 in two parts (cells 0 and 1 of 2, 10 pages each: page keys (20, 0..19)) and,
     * corruptly, a section of it at key (10, 3), which neither part has: the key part 0's page 3 moves to under 16 shards.
     */
    private String savepointWithASectionOfNoPartBesideTheOneThatMovesToItsKey() throws Exception {
        int shards = 8;
        long bucket = 20_000;
        FingerprintStoreSizing sizing = new FingerprintStoreSizing(100, 0.01, 5, 10);
        FingerprintScheme scheme = FingerprintScheme.withKeyBits(64);
        BucketFilters directory = new BucketFilters();
        directory.put(bucket, new FingerprintBucket(List.of(new FingerprintPart(scheme, sizing, 0, 2, 20, 0),
                new FingerprintPart(scheme, sizing, 1, 2, 20, 0))));
        List<ShardEntry> entries = new ArrayList<>();
        entries.add(ShardEntry.directory(0, directory));
        for (int page = 0; page < 20; page++) {
            entries.add(ShardEntry.fingerprintPage(0, FingerprintBucket.pageKey(20, page), pageWith(bucket, sizing, page)));
        }
        entries.add(ShardEntry.fingerprintPage(0, FingerprintBucket.pageKey(10, 3), pageWith(bucket, sizing, 99)));
        assertThat(entries).as("more entries than the State Processor API's queue of 16 takes").hasSizeGreaterThan(16);
        String savepoint = dir.resolve("before").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(1);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), 16)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(entries),
                        new ShardKeys(shards, 16), 0L, null, null))
                .write(savepoint);
        ToolEnvironment.execute(env, "write");
        return savepoint;
    }

    private static FingerprintPage pageWith(long bucket, FingerprintStoreSizing sizing, long value) {
        FingerprintPage page = new FingerprintPage();
        page.insertValue(bucket, 0, value, sizing.valueRange(0));
        return page;
    }

    private static DedupPlan plan(int shards, long capacity) {
        return DedupPlan.builder().capacityPerBucket(capacity).shards(shards).fpp(0.01).stateFormat(StateFormat.FINGERPRINTS).build();
    }

    /** 8 shards, max parallelism 8, each shard's state under its key for max parallelism 16: some are no key of 8. */
    private String savepointWithKeysOfAnotherMaxParallelism() throws Exception {
        int shards = 8;
        ShardKeys written = new ShardKeys(shards, 16);
        ShardKeys read = new ShardKeys(shards, shards);
        assertThat(java.util.stream.IntStream.range(0, shards).filter(s -> !written.keyOf(s).equals(read.keyOf(s))))
                .as("shards whose key differs").isNotEmpty();
        FingerprintState state = new FingerprintState(plan(shards, 4_000));
        for (int i = 0; i < 500; i++) {
            state.insert("request-" + i, "ad", 20_000 * DAY + i * 10_000L);
        }
        String savepoint = dir.resolve("keys-of-16").toString();
        StreamExecutionEnvironment env = ToolEnvironment.create(2);
        SavepointWriter.newSavepoint(env, new HashMapStateBackend(), shards)
                .withOperator(DedupSavepoint.OPERATOR, DedupSavepointWriter.entries(env.fromData(state.entries()), written, 0L, null, null))
                .write(savepoint);
        ToolEnvironment.execute(env, "write");
        return savepoint;
    }

    private record Run(int exit, String stdout, String stderr) {}

    /** {@code java -jar tools/target/dedup-tools.jar args}, as users run it: its own log configuration, its own JVM. */
    private Run runJar(String... args) throws Exception {
        Path jar = Path.of("..", "tools", "target", "dedup-tools.jar");
        assertThat(jar).as("the state tools' shaded jar (the tools module, built before this one, packages it)").isRegularFile();
        Path stdout = Files.createTempFile(dir, "stdout", ".txt");
        Path stderr = Files.createTempFile(dir, "stderr", ".txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-Djava.io.tmpdir=" + dir, "-jar", jar.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!process.waitFor(4, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("dedup-tools " + String.join(" ", args) + " did not end in 4 minutes:\n" + Files.readString(stderr));
        }
        return new Run(process.exitValue(), Files.readString(stdout), Files.readString(stderr));
    }
}
