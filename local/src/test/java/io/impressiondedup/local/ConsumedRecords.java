package io.impressiondedup.local;

import io.impressiondedup.testdata.verify.TopicReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** What the end-to-end tests read back from a topic (read_committed), and the fields they look at. */
final class ConsumedRecords {

    private ConsumedRecords() {}

    /** Every record of {@code topic}, read_committed. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrapServers, String topic) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        TopicReader.readAll(bootstrapServers, topic, Map.of(), records::add);
        return records;
    }

    /** The {@code requestId} of each record's JSON value, in order. */
    static List<String> requestIds(List<ConsumerRecord<byte[], byte[]>> records) {
        List<String> ids = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            String value = new String(record.value(), StandardCharsets.UTF_8);
            int start = value.indexOf("\"requestId\":\"") + 13;
            ids.add(value.substring(start, value.indexOf('"', start)));
        }
        return ids;
    }

    /** The last header {@code name} as UTF-8 text, or {@code null}. */
    static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        byte[] value = TopicReader.lastHeader(record, name);
        return value == null ? null : new String(value, StandardCharsets.UTF_8);
    }
}
