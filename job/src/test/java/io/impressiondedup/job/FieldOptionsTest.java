package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.FieldPath;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.operators.dedup.DedupSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The field options: names or JSON Pointers ({@link FieldPath}), and {@code --dedup-key}. */
class FieldOptionsTest {

    static DedupJobConfig parse(String... extra) {
        List<String> args = new ArrayList<>(List.of("--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out",
                "--dlq-topic", "dlq", "--capacity", "1000000"));
        args.addAll(List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    @Test
    void theDefaultKeyIsRequestIdThenAdIdAndAConfiguredKeyReplacesIt() {
        assertThat(parse().parserSettings().keyFields()).containsExactly(FieldPath.parse("requestId"), FieldPath.parse("adId"));
        assertThat(parse("--request-id-field", "/imp/rid").parserSettings().keyFields()).extracting(FieldPath::tokens)
                .containsExactly(List.of("imp", "rid"), List.of("adId"));
        ParserSettings configured = parse("--dedup-key", "/imp/rid;/imp/aid;slot", "--timestamp-field", "/imp/ts").parserSettings();
        assertThat(configured.keyFields()).extracting(FieldPath::toString).containsExactly("/imp/rid", "/imp/aid", "slot");
        assertThat(configured.timestampField().tokens()).containsExactly("imp", "ts");
        assertThat(configured.integerAllowed(0)).isTrue();
        assertThat(parse().parserSettings().integerAllowed(0)).isFalse();
    }

    /** What the state records of the key: names and their pointers are one field, and a key is its fields in order. */
    @Test
    void theOperatorIsGivenTheKeyAsPointersSoTheStateRecordsWhichKeyItWasWrittenUnder() {
        assertThat(parse().dedupSettings().dedupKey()).isEqualTo("/requestId;/adId").isEqualTo(DedupSettings.DEFAULT_DEDUP_KEY);
        assertThat(parse("--dedup-key", "requestId;/adId").dedupSettings().dedupKey()).isEqualTo("/requestId;/adId");
        assertThat(parse("--request-id-field", "/imp/rid").dedupSettings().dedupKey()).isEqualTo("/imp/rid;/adId");
        assertThat(parse("--dedup-key", "/imp/a~1b;/imp/aid;slot").dedupSettings().dedupKey()).isEqualTo("/imp/a~1b;/imp/aid;/slot");
        assertThat(parse("--dedup-key", "adId;requestId").dedupSettings().dedupKey()).isEqualTo("/adId;/requestId");
        assertThat(parse().dedupSettings().allowDedupKeyChange()).isFalse();
        assertThat(parse("--allow-dedup-key-change", "true").dedupSettings().allowDedupKeyChange()).isTrue();
    }

    @Test
    void aDedupKeyWithAnExplicitRequestOrAdIdFieldFailsNamingBoth() {
        assertThatThrownBy(() -> parse("--dedup-key", "a;b", "--request-id-field", "rid"))
                .hasMessageStartingWith("--dedup-key and --request-id-field exclude each other");
        assertThatThrownBy(() -> parse("--dedup-key", "a;b", "--ad-id-field", "aid"))
                .hasMessageStartingWith("--dedup-key and --ad-id-field exclude each other");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/imp//id", "/imp/", "/a~2b", "/a~", " "})
    void aBadPathFailsNamingTheOption(String path) {
        for (String option : List.of("--request-id-field", "--ad-id-field", "--timestamp-field", "--dedup-key")) {
            assertThatThrownBy(() -> parse(option, path)).as(option).isInstanceOf(InvalidOptionException.class)
                    .hasMessageStartingWith("Invalid value '" + path + "' for " + option + ": expected");
        }
    }

    @Test
    void aPointerErrorSaysWhatIsWrong() {
        assertThatThrownBy(() -> FieldPath.parse("/a~2b")).hasMessageContaining("'~' at character 2 not followed by 0 or 1");
        assertThatThrownBy(() -> FieldPath.parse("/imp//id")).hasMessageContaining("empty token at character 4");
    }

    @Test
    void overlappingFieldsFailNamingTheOptions() {
        assertThatThrownBy(() -> parse("--dedup-key", "/imp/rid;/imp/rid")).hasMessage(
                "Invalid --dedup-key: the fields '/imp/rid' and '/imp/rid' overlap (the same field twice)");
        assertThatThrownBy(() -> parse("--dedup-key", "/imp;/imp/rid")).hasMessage(
                "Invalid --dedup-key: the fields '/imp' and '/imp/rid' overlap (one inside the other: no record can hold both)");
        assertThatThrownBy(() -> parse("--dedup-key", "rid;/rid")).hasMessageContaining("the same field twice");
        assertThatThrownBy(() -> parse("--request-id-field", "id", "--ad-id-field", "id")).hasMessageStartingWith(
                "Invalid --request-id-field and --ad-id-field: the fields 'id' and 'id' overlap");
        assertThatThrownBy(() -> parse("--dedup-key", "/e/id", "--timestamp-field", "/e")).hasMessageStartingWith(
                "Invalid --dedup-key and --timestamp-field: the fields '/e/id' and '/e' overlap");
    }

    @Test
    void helpShowsTheDedupKeyAndThatFieldsArePointers() {
        String help = DedupJob.help();
        assertThat(help).contains("--dedup-key").contains("/imp/requestId");
    }
}
