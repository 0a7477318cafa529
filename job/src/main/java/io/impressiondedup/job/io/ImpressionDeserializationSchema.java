package io.impressiondedup.job.io;

import io.impressiondedup.job.config.ParserSettings;

import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Parses each Kafka record at the source into a {@link ParsedRecord}, keeping the original key, value,
 * headers and position. Every record yields exactly one output: an impression or a dead letter.
 */
public final class ImpressionDeserializationSchema implements KafkaRecordDeserializationSchema<ParsedRecord> {

    private static final long serialVersionUID = 1L;

    private final ParserSettings settings;
    private transient ImpressionParser parser;

    public ImpressionDeserializationSchema(ParserSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        parser = new ImpressionParser(settings);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ParsedRecord> out) {
        if (parser == null) {
            parser = new ImpressionParser(settings);
        }
        out.collect(parser.parse(toRaw(record)));
    }

    static RawKafkaRecord toRaw(ConsumerRecord<byte[], byte[]> record) {
        Header[] headers = record.headers().toArray();
        String[] keys = new String[headers.length];
        byte[][] values = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            keys[i] = headers[i].key();
            values[i] = headers[i].value();
        }
        return new RawKafkaRecord(record.topic(), record.partition(), record.offset(), record.timestamp(), record.key(),
                record.value(), keys, values);
    }

    @Override
    public TypeInformation<ParsedRecord> getProducedType() {
        return ParsedRecord.TYPE_INFO;
    }
}
