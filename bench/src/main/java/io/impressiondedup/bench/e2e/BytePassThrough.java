package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.job.io.kafka.NativeLz4;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.RawKafkaRecord;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The headline baseline of the end-to-end comparison: a job that only moves the records' bytes. The
 * same Kafka source settings (read_committed, bounded at the end offsets found at start) and the job's
 * own exactly-once output sink ({@link KafkaConnectors#outputSink}), chained in one task per subtask:
 * no parsing, no event time, no keyBy, no state. What the same cluster moves when it does nothing but
 * read and write; every variant's throughput is reported as a fraction of it.
 */
final class BytePassThrough {

    private BytePassThrough() {}

    static void defineWorkflow(StreamExecutionEnvironment env, DedupJobConfig config) {
        bytes(env, config)
                .sinkTo(KafkaConnectors.outputSink(config))
                .uid(KafkaConnectors.OUTPUT_SINK_UID)
                .name("Kafka output");
    }

    /**
     * The same, with the records sent across a keyBy between source and sink: two tasks per subtask
     * joined by a network shuffle, the shape of the dedup job (a source-and-parse task feeding a
     * dedup-and-sink task), but with nothing parsed and no state. The floor of any keyed job, so its key
     * is the cheapest that spreads records evenly over the key groups: the record's Kafka partition and
     * offset, mixed ({@link RecordPositionKey}). A hash of the value's bytes (about 400 of them) cost
     * 0.7 us per record, computed twice (by the sender, to route, and by the receiver, to set the key):
     * a keyed floor that slow made every ratio against it look better than it is.
     */
    static void defineKeyedWorkflow(StreamExecutionEnvironment env, DedupJobConfig config) {
        bytes(env, config)
                .keyBy(new RecordPositionKey(), Types.INT)
                .map(impression -> impression, Impression.TYPE_INFO)
                .uid("keyed-pass-through")
                .name("Keyed pass-through")
                .sinkTo(KafkaConnectors.outputSink(config))
                .uid(KafkaConnectors.OUTPUT_SINK_UID)
                .name("Kafka output");
    }

    private static DataStream<Impression> bytes(StreamExecutionEnvironment env, DedupJobConfig config) {
        KafkaSource<Impression> source = KafkaSource.<Impression>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setTopics(config.inputTopic())
                .setGroupId(config.groupId())
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setBounded(OffsetsInitializer.latest())
                .setDeserializer(new RawBytes())
                .setProperties(KafkaConnectors.consumerProperties(config)) // the job's consumer, as its source has it
                .setProperty("isolation.level", "read_committed")
                .setProperty("commit.offsets.on.checkpoint", "true")
                .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "Kafka bytes", Impression.TYPE_INFO)
                .uid("kafka-bytes-source");
    }

    /** The key of the keyed pass-through: the record's partition and offset, mixed (Murmur3's finalizer); nothing read from the value. */
    static final class RecordPositionKey implements KeySelector<Impression, Integer> {
        private static final long serialVersionUID = 1L;

        @Override
        public Integer getKey(Impression impression) {
            long h = impression.raw().offset() * 31 + impression.raw().partition();
            h ^= h >>> 33;
            h *= 0xff51afd7ed558ccdL;
            h ^= h >>> 33;
            return (int) h;
        }
    }

    /**
     * Each Kafka record as it came, wrapped so that the job's output sink writes it: key, value,
     * headers and timestamp, nothing read from the value (the ids are empty and the digest zero).
     */
    static final class RawBytes implements KafkaRecordDeserializationSchema<Impression> {
        private static final long serialVersionUID = 1L;

        /** As the job's source does: Kafka's LZ4 in native code also in a user-code class loader. */
        @Override
        public void open(DeserializationSchema.InitializationContext context) {
            NativeLz4.load();
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Impression> out) {
            Header[] headers = record.headers().toArray();
            String[] keys = new String[headers.length];
            byte[][] values = new byte[headers.length][];
            for (int i = 0; i < headers.length; i++) {
                keys[i] = headers[i].key();
                values[i] = headers[i].value();
            }
            RawKafkaRecord raw = new RawKafkaRecord(record.topic(), record.partition(), record.offset(), record.timestamp(),
                    record.key(), record.value(), keys, values);
            out.collect(new Impression("", "", 0L, 0L, 0L, raw));
        }

        @Override
        public TypeInformation<Impression> getProducedType() {
            return Impression.TYPE_INFO;
        }
    }
}
