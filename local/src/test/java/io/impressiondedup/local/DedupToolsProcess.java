package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.util.FileUtils;

/**
 * Runs the state tools as users do: {@code java -jar tools/target/dedup-tools.jar <verb> ...} in a JVM
 * of its own (Flink 2.3, see the tools module), with its temporary files in a directory of {@code
 * workDir} that is deleted afterwards.
 */
final class DedupToolsProcess {

    /** What a run printed and how it ended. */
    record Result(int exitCode, String stdout, String stderr) {

        /**
         * Fails, showing both streams, unless the tool exited 0 and no thread of its JVM died of an exception (a shutdown
         * hook's too: {@code ToolShutdownIT}).
         */
        Result succeeded() {
            assertThat(exitCode).as("dedup-tools exited %s.%nstdout:%n%s%nstderr:%n%s", exitCode, stdout, stderr).isZero();
            assertThat(stderr).as("dedup-tools' stderr").doesNotContain("Exception in thread");
            return this;
        }
    }

    private DedupToolsProcess() {}

    static Result run(Path workDir, String... args) throws Exception {
        return run(workDir, List.of(args));
    }

    static Result run(Path workDir, List<String> args) throws Exception {
        assertThat(Repository.toolsJar()).as("the state tools' jar (package the tools module first)").isRegularFile();
        Path tmp = Files.createTempDirectory(Files.createDirectories(workDir), "dedup-tools-tmp");
        Path out = tmp.resolve("stdout");
        Path err = tmp.resolve("stderr");
        try {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g", StandaloneCluster.SHORT_LIVED_JVM, "-Djava.io.tmpdir=" + tmp, "-jar", Repository.toolsJar().toString()));
            command.addAll(args);
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(300, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
                throw new AssertionError("dedup-tools " + String.join(" ", args) + " did not finish in 300 s:\n" + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            FileUtils.deleteDirectory(tmp.toFile());
        }
    }
}
