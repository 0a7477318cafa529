package io.impressiondedup.job.io.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.FlinkRuntimeException;
import org.junit.jupiter.api.Test;

/**
 * The rule of {@link WriterSchemas}, at its edges: a schema fetched once is kept; a 404 is kept for exactly a minute;
 * no answer is asked again with a doubling wait up to 5 s and never turns into a dead letter; a schema without the
 * job's fields is kept as unusable. The registry here is a script of answers (the real one: {@code SchemaRegistryIT}).
 */
class WriterSchemasTest {

    static final String SCHEMA = GeneratorSettings.avroSchemaText();
    static final String WITHOUT_AD_ID = "{\"type\": \"record\", \"name\": \"Impression\", \"fields\": ["
            + "{\"name\": \"requestId\", \"type\": \"string\"}, {\"name\": \"ts\", \"type\": \"long\"}]}";

    /** The answer 404. */
    private static final Object NOT_FOUND = new Object();

    /** The registry's answers in order: a schema's text, {@link #NOT_FOUND}, an exception for no answer. */
    private final Deque<Object> answers = new ArrayDeque<>();
    private final List<Long> asked = new ArrayList<>();
    private final List<Long> slept = new ArrayList<>();
    private long now = 1_000_000;

    private WriterSchemas schemas() {
        ParserSettings settings = ParserSettings.defaults();
        return new WriterSchemas((kind, id) -> {
            asked.add(id);
            Object answer = answers.removeFirst();
            if (answer instanceof IOException e) {
                throw e;
            }
            return answer == NOT_FOUND ? SchemaRegistryClient.Answer.unknown("404 for " + id) : SchemaRegistryClient.Answer.found((String) answer);
        }, SchemaIdKind.FOUR_BYTE_ID, "the test's registry", settings::avroFieldsFor, new UnregisteredMetricsGroup(), () -> now, slept::add);
    }

    @Test
    void aSchemaFetchedOnceServesItsIdFromThenOn() {
        WriterSchemas schemas = schemas();
        answers.add(SCHEMA);
        WriterSchemas.Resolution first = schemas.resolve(7);
        now += 365L * 24 * 3600 * 1000;
        assertThat(schemas.resolve(7)).isSameAs(first);
        assertThat(first.fields()).isNotNull();
        assertThat(first.unknown()).isNull();
        assertThat(asked).containsExactly(7L);
    }

    @Test
    void anUnknownIdIsKeptForExactlyAMinute() {
        WriterSchemas schemas = schemas();
        answers.add(NOT_FOUND);
        assertThat(schemas.resolve(9).unknown()).isEqualTo("404 for 9");
        now += WriterSchemas.UNKNOWN_TTL_MILLIS - 1;
        assertThat(schemas.resolve(9).unknown()).isNotNull();
        assertThat(asked).containsExactly(9L);
        now += 1; // exactly a minute after the answer: asked again, and this time the schema is there
        answers.add(SCHEMA);
        assertThat(schemas.resolve(9).fields()).isNotNull();
        assertThat(asked).containsExactly(9L, 9L);
    }

    @Test
    void noAnswerIsAskedAgainWithADoublingWaitUpToFiveSecondsAndNeverDeadLetters() {
        WriterSchemas schemas = schemas();
        for (int i = 0; i < 8; i++) {
            answers.add(new IOException("connection refused"));
        }
        answers.add(SCHEMA);
        WriterSchemas.Resolution resolution = schemas.resolve(3);
        assertThat(resolution.fields()).isNotNull();
        assertThat(resolution.unknown()).isNull();
        assertThat(slept).containsExactly(100L, 200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L);
        assertThat(asked).hasSize(9);
    }

    @Test
    void aSchemaWithoutTheJobsFieldsIsKeptAsUnusableNamingTheField() {
        WriterSchemas schemas = schemas();
        answers.add(WITHOUT_AD_ID);
        WriterSchemas.Resolution resolution = schemas.resolve(4);
        assertThat(resolution.fields()).isNull();
        assertThat(resolution.unusable()).contains("/adId");
        assertThat(schemas.resolve(4)).isSameAs(resolution);
        assertThat(asked).containsExactly(4L);
    }

    @Test
    void aCancelledTaskStopsWaiting() {
        ParserSettings settings = ParserSettings.defaults();
        WriterSchemas schemas = new WriterSchemas((kind, id) -> {
            throw new IOException("connection refused");
        }, SchemaIdKind.FOUR_BYTE_ID, "the test's registry", settings::avroFieldsFor, new UnregisteredMetricsGroup(), () -> now, millis -> {
            throw new InterruptedException();
        });
        assertThatThrownBy(() -> schemas.resolve(5)).isInstanceOf(FlinkRuntimeException.class)
                .hasMessageStartingWith("interrupted while waiting for the schema registry");
        assertThat(Thread.interrupted()).as("the interrupt is kept for the task").isTrue();
    }
}
