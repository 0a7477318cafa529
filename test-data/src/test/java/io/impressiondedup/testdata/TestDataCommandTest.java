package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The command line of test-data as documented in test-data/README.md: options, defaults, help and exit codes. */
class TestDataCommandTest {

    @TempDir
    Path dir;

    private String out;
    private String err;

    private int run(String... args) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int exit = TestDataCommand.run(args, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        out = outBytes.toString(StandardCharsets.UTF_8);
        err = errBytes.toString(StandardCharsets.UTF_8);
        return exit;
    }

    private String[] generateToFiles(String... options) {
        String[] args = new String[options.length + 5];
        args[0] = "generate";
        System.arraycopy(options, 0, args, 1, options.length);
        args[options.length + 1] = "--output";
        args[options.length + 2] = dir.resolve("impressions.jsonl").toString();
        args[options.length + 3] = "--truth";
        args[options.length + 4] = dir.resolve("truth.csv").toString();
        return args;
    }

    @Test
    void generateHelpListsEveryOptionWithItsDefault() {
        assertThat(run("generate", "--help")).isZero();

        assertThat(out).startsWith("Usage: test-data generate").contains("--count=", "--seed=", "--duplicate-share=",
                "--beyond-retention-share=", "--late-share=", "--malformed-share=", "--future-share=", "--max-ads-per-request=",
                "--span=", "--start=", "--max-jitter=", "--retention=", "--bucket-size=", "--allowed-lateness=",
                "--delayed-share=", "--delay-min=", "--delay-max=", "--output=", "--topic=", "--bootstrap-servers=", "--truth=",
                "--rate=", "--kafka.<property>", "--help");
        assertThat(out).contains("Default: 1000000", "Default: 0.2", "Default: 0.02", "Default: 0.002", "Default: 0.003",
                "Default: 0.001", "Default: 3", "Default: 4d", "Default: 30s", "Default: 2d", "Default: 1d", "Default: 1h",
                "Default: 20h");
        assertThat(err).isEmpty();
    }

    @Test
    void verifyHelpListsEveryOptionWithItsDefault() {
        assertThat(run("verify", "--help")).isZero();

        assertThat(out).startsWith("Usage: test-data verify").contains("--truth=", "--bootstrap-servers=", "--output-topic=",
                "--dlq-topic=", "--output-file=", "--dlq-file=", "--configured-fpp=", "--max-fp-rate=", "--max-false-negatives=",
                "--max-lost=", "--max-written-twice=", "--max-misclassified=", "--max-genuine-dead-lettered=", "--report=",
                "--await-group=", "--input-topic=", "--await-timeout=", "--kafka.<property>", "--help");
        assertThat(out).contains("Default: 0", "Default: 5min");
    }

    @Test
    void theToolsHelpListsTheCommandsAndNoCommandIsABadCommandLine() {
        assertThat(run("--help")).isZero();
        assertThat(out).contains("generate", "verify");

        assertThat(run()).isEqualTo(2);
        assertThat(err).contains("subcommand");

        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(err).contains("frobnicate");
    }

    @ParameterizedTest
    @CsvSource({
        "generate, --cuont, 5, --cuont",
        "verify, --max-fp, 0.1, --max-fp",
        "generate, --count, abc, --count",
        "generate, --count, 0, --count",
        "generate, --duplicate-share, 0.95, --duplicate-share",
        "generate, --span, 4x, --span",
        "generate, --max-jitter, 5min, --max-jitter",
        "generate, --bucket-size, 7h, --bucket-size",
        "generate, --start, yesterday, --start",
        "generate, --rate, -1, --rate",
        "verify, --max-lost, many, --max-lost",
        "verify, --await-timeout, soon, --await-timeout",
    })
    void aBadOptionOrValueExitsWithTwoNamingTheOption(String command, String option, String value, String named) {
        String[] args = command.equals("generate")
                ? generateToFiles(option, value)
                : new String[] {"verify", "--truth", "truth.csv", option, value};

        assertThat(run(args)).isEqualTo(2);
        assertThat(err).contains(named).contains("test-data " + command + " --help");
        assertThat(out).isEmpty();
    }

    @Test
    void generateNeedsExactlyOneDestinationAndTheTruth() {
        assertThat(run("generate", "--truth", dir.resolve("truth.csv").toString())).isEqualTo(2);
        assertThat(err).contains("--output", "--topic");

        assertThat(run("generate", "--truth", dir.resolve("truth.csv").toString(), "--topic", "impressions")).isEqualTo(2);
        assertThat(err).contains("--bootstrap-servers");

        assertThat(run("generate", "--output", dir.resolve("impressions.jsonl").toString())).isEqualTo(2);
        assertThat(err).contains("--truth");
    }

    @Test
    void durationsInstantsAndKafkaPropertiesAreAccepted() {
        assertThat(run(generateToFiles("--count", "100", "--span=2d", "--max-jitter", "10s", "--delayed-share", "0.01",
                "--delay-min", "30min", "--delay-max", "12h", "--start", "2026-11-18T00:00:00Z", "--kafka.acks", "all",
                "--kafka.linger.ms=5"))).isZero();
        assertThat(out).contains("records by class:");

        assertThat(run(generateToFiles("--count", "100", "--kafka.acks"))).isEqualTo(2);
        assertThat(err).contains("--kafka.acks");

        assertThat(run(generateToFiles("--count", "100", "stray"))).isEqualTo(2);
        assertThat(err).contains("stray");
    }
}
