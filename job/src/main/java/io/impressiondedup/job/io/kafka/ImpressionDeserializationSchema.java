package io.impressiondedup.job.io.kafka;

import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.parsing.RecordParser;

import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Parses each Kafka record at the source into a {@link ParsedRecord}, with the parser of the input format
 * ({@link RecordParser#of}), keeping the original key, value,
 * headers and position. Every record yields exactly one output: an impression or a dead letter; no
 * record, however built, makes it throw.
 *
 * <p>Before parsing, the record's size is checked, so that nothing the rest of the job cannot carry
 * gets past the source (see {@code RawKafkaRecordFormat}):
 *
 * <ul>
 *   <li>more headers than {@code --max-headers}: a <b>malformed</b> dead letter, without any of its
 *       headers;
 *   <li>more bytes than {@code --max-record-bytes}, counting the key, the value and every header's key
 *       (UTF-8) and value: an <b>oversized</b> dead letter, without any of its headers if they alone
 *       exceed {@code --max-record-bytes}. Headers within both limits are kept: the format and the
 *       dead-letter sink carry them, and they are what identifies the record downstream (trace ids,
 *       the ground truth's sequence number).
 * </ul>
 *
 * Such a dead letter keeps the record's key and value (the dead-letter sink truncates the value if
 * the topic cannot take it whole), and its {@code dedup.error} says how many headers or bytes the
 * record had, which option it exceeded, and whether its headers were dropped. One whose headers were
 * dropped carries, in their place, the one header {@link DeadLetterHeaders#DROPPED_HEADERS} with their
 * count ({@link #headersDroppedAtSource}): the source is the only place that knows the count, and a
 * program (a replay) must not have to parse {@code dedup.error} to learn that the dead letter is not
 * the whole record. So nothing past the
 * source has more than {@code --max-headers} headers or, admitted as an impression, more than {@code
 * --max-record-bytes}. The checks reuse the header array the record is built from: no allocation is
 * added per record.
 */
public final class ImpressionDeserializationSchema implements KafkaRecordDeserializationSchema<ParsedRecord> {

    private static final long serialVersionUID = 1L;
    private static final String HEADERS_DROPPED = "; its headers are dropped from this dead letter";

    private final ParserSettings settings;
    private final int maxHeaders;
    private transient RecordParser parser;

    /** With the default {@code --max-headers}. */
    public ImpressionDeserializationSchema(ParserSettings settings) {
        this(settings, DedupJobOptions.MAX_HEADERS.defaultValue());
    }

    public ImpressionDeserializationSchema(ParserSettings settings, int maxHeaders) {
        if (maxHeaders < 0 || maxHeaders > RawKafkaRecord.MAX_ADMITTED_HEADERS) {
            throw new IllegalArgumentException("maxHeaders " + maxHeaders + " is outside [0, " + RawKafkaRecord.MAX_ADMITTED_HEADERS + "]");
        }
        this.settings = settings;
        this.maxHeaders = maxHeaders;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        NativeLz4.load(); // before the first batch is fetched
        parser = RecordParser.of(settings, System::currentTimeMillis, context.getMetricGroup());
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ParsedRecord> out) {
        if (parser == null) {
            parser = RecordParser.of(settings);
        }
        Header[] headers = record.headers().toArray();
        if (headers.length > maxHeaders) {
            out.collect(withoutHeaders(record, headers.length, DeadLetterReason.MALFORMED, headers.length + " headers exceed --"
                    + DedupJobOptions.MAX_HEADERS.key() + " " + maxHeaders + HEADERS_DROPPED));
            return;
        }
        long headerBytes = 0;
        for (Header header : headers) {
            headerBytes += utf8Length(header.key()) + length(header.value());
        }
        long bytes = length(record.key()) + length(record.value()) + headerBytes;
        if (bytes > settings.maxRecordBytes()) {
            String error = "record of " + bytes + " bytes (key + value + " + headers.length + " headers) exceeds --"
                    + DedupJobOptions.MAX_RECORD_BYTES.key() + " " + settings.maxRecordBytes();
            if (headerBytes > settings.maxRecordBytes()) {
                out.collect(withoutHeaders(record, headers.length, DeadLetterReason.OVERSIZED, error + "; its headers alone are " + headerBytes
                        + " bytes" + HEADERS_DROPPED));
            } else {
                out.collect(ParsedRecord.of(new DeadLetter(toRaw(record, headers), DeadLetterReason.OVERSIZED, error)));
            }
            return;
        }
        out.collect(parser.parse(toRaw(record, headers)));
    }

    static RawKafkaRecord toRaw(ConsumerRecord<byte[], byte[]> record, Header[] headers) {
        String[] keys = new String[headers.length];
        byte[][] values = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            keys[i] = headers[i].key();
            values[i] = headers[i].value();
        }
        return new RawKafkaRecord(record.topic(), record.partition(), record.offset(), record.timestamp(), record.key(),
                record.value(), keys, values);
    }

    /** A dead letter of {@code record} without its {@code droppedHeaders} headers: only the marker {@link DeadLetterHeaders#DROPPED_HEADERS} in their place. */
    private static ParsedRecord withoutHeaders(ConsumerRecord<byte[], byte[]> record, int droppedHeaders, DeadLetterReason reason,
            String error) {
        RawKafkaRecord raw = new RawKafkaRecord(record.topic(), record.partition(), record.offset(), record.timestamp(), record.key(),
                record.value(), new String[] {DeadLetterHeaders.DROPPED_HEADERS},
                new byte[][] {Integer.toString(droppedHeaders).getBytes(StandardCharsets.US_ASCII)});
        return ParsedRecord.of(new DeadLetter(raw, reason, error));
    }

    /**
     * Whether the source dropped {@code raw}'s headers: its only header is the marker {@link
     * DeadLetterHeaders#DROPPED_HEADERS} that {@link #deserialize} put in their place. The dead-letter sink
     * then keeps that marker as it is, never counting it as one of the record's own headers.
     */
    public static boolean headersDroppedAtSource(RawKafkaRecord raw) {
        return raw.headerCount() == 1 && DeadLetterHeaders.DROPPED_HEADERS.equals(raw.headerKey(0));
    }

    private static long length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }

    /** The length of {@code s} in UTF-8, as Kafka writes a header key (an unpaired surrogate becomes '?'), without encoding it. */
    public static long utf8Length(String s) {
        long length = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                length += 1;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                length += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                length += 1;
            } else {
                length += 3;
            }
        }
        return length;
    }

    @Override
    public TypeInformation<ParsedRecord> getProducedType() {
        return ParsedRecord.TYPE_INFO;
    }
}
