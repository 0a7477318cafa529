package io.impressiondedup.bench.parse;

import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.ImpressionParser;
import io.impressiondedup.job.io.avro.AvroImpressionFields;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.state.fingerprint.RequestIdDigester;
import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.GeneratorSettings;
import io.impressiondedup.testdata.ImpressionGenerator;
import io.impressiondedup.testdata.ValueFormat;
import java.io.IOException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * The per-record work of each input format on the same impressions (the generator's, one seed, written once as
 * JSON and once as Avro with the 5-byte wire prefix): what the source does before the record is shuffled.
 *
 * <ul>
 *   <li>{@code json}: {@link ImpressionParser#parse} on the flat JSON records (fast path, checks, MD5 digest).
 *   <li>{@code avro}: {@link AvroImpressionFields#read} (the bounded decoder of job/io/avro), then the parse of the 5% of
 *       ISO-8601 event times, the minimum event time and the MD5 digest of the request id: what the parser will do.
 *   <li>{@code avro-library}: Avro's own {@code GenericDatumReader(writer, projection)}, the projection holding only
 *       the three fields (schema resolution skips the rest), then the same digest and ISO parse: the alternative.
 * </ul>
 */
final class ParseVariants {

    static final int RECORDS = 1 << 14;
    static final List<String> ALL = List.of("json", "avro", "avro-library");
    /** The parser's --min-event-time, which the JSON variant applies: so that both variants refuse the same records. */
    private static final long MIN_EVENT_TIME = ParserSettings.DEFAULT_MIN_EVENT_TIME.toEpochMilli();

    final RawKafkaRecord[] json;
    final byte[][] avro;
    final long jsonBytes;
    final long avroBytes;
    private final ImpressionParser parser;
    private final AvroImpressionFields fields;
    private final RequestIdDigester digester = new RequestIdDigester();
    private final GenericDatumReader<GenericRecord> library;
    private BinaryDecoder decoder;
    private GenericRecord reuse;

    ParseVariants() {
        parser = new ImpressionParser(new ParserSettings("requestId", "adId", "ts", 1 << 20, Duration.ofHours(1),
                ParserSettings.DEFAULT_MIN_EVENT_TIME), () -> Long.MAX_VALUE / 2);
        List<GeneratedRecord> jsonRecords = generate(ValueFormat.JSON);
        List<GeneratedRecord> avroRecords = generate(ValueFormat.AVRO);
        json = new RawKafkaRecord[jsonRecords.size()];
        avro = new byte[avroRecords.size()][];
        long jsonTotal = 0;
        long avroTotal = 0;
        for (int i = 0; i < json.length; i++) {
            json[i] = RawKafkaRecord.ofValue("impressions", 0, i, jsonRecords.get(i).value);
            avro[i] = avroRecords.get(i).value;
            jsonTotal += json[i].value() == null ? 0 : json[i].value().length;
            avroTotal += avro[i] == null ? 0 : avro[i].length;
        }
        jsonBytes = jsonTotal;
        avroBytes = avroTotal;
        String schemaText = GeneratorSettings.avroSchemaText();
        fields = new AvroImpressionFields(schemaText, AvroWirePrefix.CONFLUENT, OptionalInt.of(1),
                List.of(List.of("requestId"), List.of("adId")), List.of("ts"));
        Schema writer = new Schema.Parser().parse(schemaText);
        Schema projection = Schema.createRecord(writer.getName(), null, writer.getNamespace(), false, List.of(
                new Schema.Field("requestId", writer.getField("requestId").schema()),
                new Schema.Field("adId", writer.getField("adId").schema()),
                new Schema.Field("ts", writer.getField("ts").schema())));
        library = new GenericDatumReader<>(writer, projection);
    }

    /** One record of {@code variant} at {@code index}: 1 if it is an impression, 0 if a dead letter. */
    int run(String variant, int index) {
        switch (variant) {
            case "json":
                return parser.parse(json[index]).isImpression() ? 1 : 0;
            case "avro":
                return avro(index);
            case "avro-library":
                return avroLibrary(index);
            default:
                throw new IllegalArgumentException("unknown variant " + variant + ", expected one of " + ALL);
        }
    }

    int avro(int index) {
        if (fields.read(avro[index]) != null || fields.keyText(0) == null || fields.keyText(1) == null) {
            return 0;
        }
        long eventTime = fields.eventTimeKind() == AvroImpressionFields.EventTimeKind.TEXT ? isoInstant(fields.eventTimeText())
                : fields.eventTimeKind() == AvroImpressionFields.EventTimeKind.EPOCH_MILLIS ? fields.eventTimeMillis() : Long.MIN_VALUE;
        if (eventTime < MIN_EVENT_TIME) {
            return 0;
        }
        digester.digest(fields.keyText(0));
        return 1;
    }

    int avroLibrary(int index) {
        byte[] value = avro[index];
        if (value == null || value.length < 5 || value[0] != 0) { // the magic byte: the garbage records begin otherwise
            return 0;
        }
        try {
            decoder = DecoderFactory.get().binaryDecoder(value, 5, value.length - 5, decoder);
            reuse = library.read(reuse, decoder);
            if (!decoder.isEnd()) {
                return 0;
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        Object requestId = reuse.get("requestId");
        Object adId = reuse.get("adId");
        Object ts = reuse.get("ts");
        if (requestId == null || adId == null || requestId.toString().isEmpty()
                || (ts instanceof Long millis ? millis : isoInstant(ts.toString())) < MIN_EVENT_TIME) {
            return 0;
        }
        digester.digest(requestId.toString());
        return 1;
    }

    /** The epoch millis of an ISO-8601 instant with an offset, or Long.MIN_VALUE: the event-time rules' parse. */
    private static long isoInstant(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
            return Long.MIN_VALUE;
        }
    }

    private static List<GeneratedRecord> generate(ValueFormat format) {
        ImpressionGenerator generator = new ImpressionGenerator(GeneratorSettings.builder().count(RECORDS).seed(3).format(format)
                .start(java.time.Instant.parse("2026-11-19T00:00:00Z"))
                .avroSchemaId(format == ValueFormat.AVRO ? 1 : null).build());
        List<GeneratedRecord> records = new ArrayList<>();
        generator.forEachRemaining(records::add);
        return records;
    }
}
