package io.impressiondedup.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The replay command line: bad values are refused before any Kafka client starts, naming the option. */
class ReplayCommandTest {

    private static final String[] BASE = {"replay", "--bootstrap-servers", "127.0.0.1:1", "--dlq-topic", "dlq"};

    @Test
    void anUnknownReasonIsRefusedNamingTheOptionAndTheKnownReasons() {
        String err = refused("--reason", "late,stale");
        assertThat(err).contains("'stale'").contains("--reason").contains("future-timestamp");
    }

    @Test
    void fromOffsetsAndFromTimeTogetherAreRefused() {
        assertThat(refused("--reason", "late", "--from-offsets", "0:10", "--from-time", "2026-11-23T00:00:00Z"))
                .contains("--from-offsets").contains("--from-time");
    }

    @Test
    void aMalformedOffsetPairIsRefusedNamingTheOption() {
        assertThat(refused("--reason", "late", "--from-offsets", "0-10")).contains("'0-10'").contains("--from-offsets");
    }

    @Test
    void theReasonIsRequired() {
        assertThat(refused()).contains("Missing required option --reason");
    }

    private static String refused(String... args) {
        String[] all = new String[BASE.length + args.length];
        System.arraycopy(BASE, 0, all, 0, BASE.length);
        System.arraycopy(args, 0, all, BASE.length, args.length);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = DedupTools.run(all, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(exit).isEqualTo(2);
        return err.toString(StandardCharsets.UTF_8);
    }
}
