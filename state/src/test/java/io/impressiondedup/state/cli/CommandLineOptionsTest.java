package io.impressiondedup.state.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineOptionsTest {

    private static final ConfigOption<Integer> COUNT = ConfigOptions.key("count").intType().defaultValue(10).withDescription("How many.");
    private static final ConfigOption<Boolean> BOUNDED = ConfigOptions.key("bounded").booleanType().defaultValue(false).withDescription("Stop at the end.");
    private static final ConfigOption<Duration> WAIT = ConfigOptions.key("wait").durationType().defaultValue(Duration.ofSeconds(5)).withDescription("How long.");
    private static final ConfigOption<String> TOPIC = ConfigOptions.key("topic").stringType().noDefaultValue().withDescription("Where.");
    private static final ConfigOption<String> AUDIT = ConfigOptions.key("audit").stringType().noDefaultValue().withDescription("Optional copy.");

    private final CommandLineOptions options = new CommandLineOptions("demo", "A demo.")
            .add(COUNT, BOUNDED, WAIT, TOPIC, AUDIT)
            .required(TOPIC)
            .require(COUNT, c -> c > 0, "a positive count")
            .addPassThrough("kafka.", "Any Kafka client property.");

    @Test
    void valuesAreTypedAndDefaultsApply() {
        CommandLine cl = options.parse("--count", "3", "--wait=2min", "--topic", "t");
        assertThat(cl.get(COUNT)).isEqualTo(3);
        assertThat(cl.get(WAIT)).isEqualTo(Duration.ofMinutes(2));
        assertThat(cl.get(BOUNDED)).isFalse();
        assertThat(cl.getOptional(AUDIT)).isEmpty();
    }

    @Test
    void aBooleanOptionAloneMeansTrue() {
        assertThat(options.parse("--bounded", "--count", "1", "--topic", "t").get(BOUNDED)).isTrue();
        assertThat(options.parse("--bounded", "false", "--topic", "t").get(BOUNDED)).isFalse();
    }

    @Test
    void passThroughPropertiesAreCollectedWithoutTheirPrefix() {
        CommandLine cl = options.parse("--kafka.security.protocol", "SASL_SSL", "--kafka.sasl.jaas.config", "secret-value", "--topic", "t");
        assertThat(cl.passThrough("kafka.")).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.jaas.config", "secret-value");
    }

    @Test
    void describeNeverShowsSecretsInClear() {
        CommandLine cl = options.parse("--kafka.sasl.jaas.config", "org.apache...PlainLoginModule password=\"hunter2\"", "--kafka.ssl.truststore.password", "pw",
                "--topic", "t");
        String described = options.describe(cl);
        assertThat(described).doesNotContain("hunter2").doesNotContain("= pw").contains("kafka.sasl.jaas.config = ******");
    }

    @Test
    void aConfigFileProvidesOptionsTheCommandLineOverrides(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(file, "count = 7\ntopic = from-file\nkafka.acks = all\n");
        CommandLine cl = options.parse("--config", file.toString(), "--topic", "from-args");
        assertThat(cl.get(COUNT)).isEqualTo(7);
        assertThat(cl.get(TOPIC)).isEqualTo("from-args");
        assertThat(cl.passThrough("kafka.")).containsEntry("acks", "all");
    }

    @Test
    void anUnknownKeyInTheConfigFileIsNamedWithTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("job.properties");
        Files.writeString(file, "cuont = 7\n");
        assertThatThrownBy(() -> options.parse("--config", file.toString()))
                .isInstanceOf(InvalidCommandLineException.class)
                .hasMessageContaining("--cuont")
                .hasMessageContaining(file.toString());
    }

    @Test
    void rulesNameTheOptionTheValueAndWhatWasExpected() {
        assertThatThrownBy(() -> options.parse("--count", "0", "--topic", "t"))
                .isInstanceOf(InvalidCommandLineException.class)
                .hasMessage("Invalid value '0' for --count: expected a positive count");
    }

    @Test
    void anOptionWithoutItsValueIsNamed() {
        assertThatThrownBy(() -> options.parse("--topic")).hasMessageContaining("--topic needs a value");
    }

    @Test
    void aStrayArgumentIsRejected() {
        assertThatThrownBy(() -> options.parse("count=3")).hasMessageContaining("'count=3'");
    }

    @Test
    void aRequiredOptionThatIsMissingIsNamedWithItsDescription() {
        assertThatThrownBy(() -> options.parse("--count", "3"))
                .isInstanceOf(InvalidCommandLineException.class)
                .hasMessageContaining("Missing required option --topic")
                .hasMessageContaining("Where.");
    }

    @Test
    void anOptionWithoutDefaultThatIsNotRequiredMayBeLeftOut() {
        assertThat(options.parse("--topic", "t").getOptional(AUDIT)).isEmpty();
    }

    @Test
    void helpIsGeneratedFromTheOptions() {
        assertThat(options.parse("--help").helpRequested()).isTrue();
        assertThat(options.help())
                .contains("Usage: demo")
                .contains("--count  (default: 10)")
                .contains("How many.")
                .contains("--wait  (default: 5 s)")
                .contains("--topic  (required)")
                .contains("--audit\n")
                .contains("--kafka.<property> <value>");
    }
}
