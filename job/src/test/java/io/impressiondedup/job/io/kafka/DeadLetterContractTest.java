package io.impressiondedup.job.io.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

/**
 * The dead-letter header contract of {@code docs/DEAD-LETTERS.md} pinned to the code: the headers the dead-letter
 * serializer writes, on every path it has (whole, truncated, headers dropped, key cut, tombstone), are exactly the
 * table's rows and {@link DeadLetterHeaders}' constants.
 */
class DeadLetterContractTest {

    private static final Path TABLE = Path.of("..", "docs", "DEAD-LETTERS.md").toAbsolutePath().normalize();
    private static final Pattern ROW = Pattern.compile("^\\| `(dedup\\.[a-z0-9.-]+)` \\|");
    private static final long TIMESTAMP = 1_700_000_000_000L;

    @Test
    void everyHeaderTheDeadLetterSinkWritesIsInTheContractTableAndEveryRowIsWritten() throws Exception {
        assertThat(writtenHeaderNames()).isEqualTo(tableHeaderNames());
    }

    @Test
    void everyDeclaredDeadLetterHeaderIsWrittenOnSomePath() throws Exception {
        assertThat(declaredHeaderNames()).isEqualTo(writtenHeaderNames());
    }

    @Test
    void aDeadLetterKeepsItsOriginalTimestampInAHeaderAndItsKeyValueAndHeadersAsTheyWere() {
        byte[] key = utf8("k-1");
        byte[] value = utf8("{\"requestId\":\"r\"");
        RawKafkaRecord raw = new RawKafkaRecord("impressions", 3, 42L, TIMESTAMP, key, value, new String[] {"trace"},
                new byte[][] {utf8("t-1")});
        ProducerRecord<byte[], byte[]> written = new KafkaRecords.DeadLetters("dlq", Integer.MAX_VALUE)
                .serialize(new DeadLetter(raw, DeadLetterReason.MALFORMED, "invalid JSON"), null, null);

        assertThat(KafkaRecordsTest.header(written, DeadLetterHeaders.SOURCE_TIMESTAMP)).isEqualTo(Long.toString(TIMESTAMP));
        assertThat(written.timestamp()).isEqualTo(TIMESTAMP);
        assertThat(written.key()).isEqualTo(key);
        assertThat(written.value()).isEqualTo(value);
        assertThat(written.headers().toArray()[0].key()).isEqualTo("trace");
        assertThat(KafkaRecordsTest.header(written, DeadLetterHeaders.SOURCE_TOPIC)).isEqualTo("impressions");
        assertThat(KafkaRecordsTest.header(written, DeadLetterHeaders.SOURCE_PARTITION)).isEqualTo("3");
        assertThat(KafkaRecordsTest.header(written, DeadLetterHeaders.SOURCE_OFFSET)).isEqualTo("42");
    }

    @Test
    void aRecordWithoutATimestampGetsNoTimestampHeader() {
        ProducerRecord<byte[], byte[]> written = new KafkaRecords.DeadLetters("dlq", Integer.MAX_VALUE).serialize(new DeadLetter(
                RawKafkaRecord.ofValue("impressions", 0, 7L, utf8("x")), DeadLetterReason.MALFORMED, "invalid JSON"), null, null);

        assertThat(written.headers().lastHeader(DeadLetterHeaders.SOURCE_TIMESTAMP)).isNull();
        assertThat(written.timestamp()).isNull();
    }

    /** The dedup.* names written on each of the serializer's paths. */
    private static Set<String> writtenHeaderNames() {
        byte[] big = KafkaRecordsTest.random(20_000);
        List<ProducerRecord<byte[], byte[]>> written = List.of(
                serialize(KafkaRecordsTest.deadLetter(KafkaRecordsTest.KEY, utf8("{}"), 2, 10), Integer.MAX_VALUE),
                serialize(KafkaRecordsTest.deadLetter(KafkaRecordsTest.KEY, big, 2, 10), 5_000),
                serialize(KafkaRecordsTest.deadLetter(KafkaRecordsTest.KEY, big, 10, 1_000), 5_000),
                serialize(KafkaRecordsTest.deadLetter(big, big, 0, 0), 5_000),
                serialize(KafkaRecordsTest.deadLetter(KafkaRecordsTest.KEY, null, 0, 0), 100));
        Set<String> names = new TreeSet<>();
        for (ProducerRecord<byte[], byte[]> record : written) {
            for (Header header : record.headers()) {
                if (header.key().startsWith(DeadLetterHeaders.PREFIX)) {
                    names.add(header.key());
                }
            }
        }
        return names;
    }

    private static ProducerRecord<byte[], byte[]> serialize(DeadLetter deadLetter, int maxBytes) {
        return new KafkaRecords.DeadLetters("dlq", maxBytes).serialize(deadLetter, null, null);
    }

    private static Set<String> tableHeaderNames() throws Exception {
        assertThat(TABLE).as("the contract table").isRegularFile();
        Set<String> names = new TreeSet<>();
        for (String line : Files.readAllLines(TABLE, StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                assertThat(names.add(row.group(1))).as("%s has one row in %s", row.group(1), TABLE).isTrue();
            }
        }
        return names;
    }

    private static Set<String> declaredHeaderNames() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field field : DeadLetterHeaders.class.getDeclaredFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class && !field.getName().equals("PREFIX")) {
                names.add((String) field.get(null));
            }
        }
        return names;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
