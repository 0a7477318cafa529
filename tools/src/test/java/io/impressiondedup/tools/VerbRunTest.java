package io.impressiondedup.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VerbRunTest {

    @ParameterizedTest
    @ValueSource(strings = {"inspect", "bootstrap", "reshape", "replay"})
    void everyVerbListsAndTakesVerbose(String verb) {
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        assertThat(DedupTools.run(new String[] {verb, "--help"}, new PrintStream(help), new PrintStream(new ByteArrayOutputStream()))).isZero();
        assertThat(help.toString(StandardCharsets.UTF_8)).contains("--verbose  (default: false)").contains("Flink");

        for (List<String> given : List.of(List.of("--verbose"), List.of("--verbose", "true"), List.of("--verbose=false"))) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            String[] args = new String[given.size() + 1];
            args[0] = verb;
            for (int i = 0; i < given.size(); i++) {
                args[i + 1] = given.get(i);
            }
            int exit = DedupTools.run(args, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
            assertThat(exit).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).as("%s", given).doesNotContain("Unknown option").doesNotContain("verbose");
        }
    }
}
