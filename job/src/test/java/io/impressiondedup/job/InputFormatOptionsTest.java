package io.impressiondedup.job;

import static io.impressiondedup.job.FieldOptionsTest.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.InputFormat;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.parsing.AvroImpressionParser;
import io.impressiondedup.job.io.parsing.JsonImpressionParser;
import io.impressiondedup.job.io.parsing.RecordParser;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --input-format} and the Avro options: checked where the options are parsed, each failure naming the options. */
class InputFormatOptionsTest {

    @TempDir
    Path dir;

    private String schemaFile() throws Exception {
        Path file = dir.resolve("impression.avsc");
        Files.writeString(file, GeneratorSettings.avroSchemaText());
        return file.toString();
    }

    @Test
    void jsonIsTheDefaultAndAvroOptionsWithJsonInputFailNamingThem() {
        assertThat(parse().parserSettings().inputFormat()).isEqualTo(InputFormat.JSON);
        assertThat(RecordParser.of(parse().parserSettings())).isInstanceOf(JsonImpressionParser.class);
        assertThatThrownBy(() -> parse("--avro-wire-prefix", "confluent")).isInstanceOf(InvalidOptionException.class).hasMessage(
                "--avro-wire-prefix applies only with --input-format avro, but the input format is json: set --input-format avro, or remove it");
        assertThatThrownBy(() -> parse("--input-format", "json", "--avro-schema-file", "x.avsc", "--avro-schema-id", "3"))
                .hasMessageStartingWith("--avro-schema-file, --avro-schema-id apply only with --input-format avro");
    }

    @Test
    void avroInputNeedsAReadableValidSchemaFile() throws Exception {
        assertThatThrownBy(() -> parse("--input-format", "avro")).isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--input-format avro needs --avro-schema-file");
        String missing = dir.resolve("missing.avsc").toString();
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", missing))
                .hasMessageStartingWith("Cannot read --avro-schema-file " + missing + ": java.nio.file.NoSuchFileException");
        Path notASchema = Files.writeString(dir.resolve("bad.avsc"), "{\"type\": \"recrod\", \"name\": \"X\"}");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", notASchema.toString()))
                .hasMessageStartingWith("Invalid --avro-schema-file " + notASchema + ": the Avro schema is not valid");
    }

    @Test
    void aFieldTheSchemaCannotHoldFailsNamingItsOption() throws Exception {
        String schema = schemaFile();
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", schema, "--ad-id-field", "/placement/adId"))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--avro-schema-file " + schema + " does not fit --ad-id-field /placement/adId: the field path"
                        + " /placement/adId is not in the Avro schema");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", schema, "--timestamp-field", "price"))
                .hasMessageStartingWith("--avro-schema-file " + schema + " does not fit --timestamp-field price: the event time field /price");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", schema, "--dedup-key", "requestId;/device"))
                .hasMessageStartingWith("--avro-schema-file " + schema + " does not fit --dedup-key /device: the key field /device");
    }

    @Test
    void aSchemaIdNeedsTheConfluentPrefix() throws Exception {
        String schema = schemaFile();
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", schema, "--avro-schema-id", "7"))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessage("--avro-schema-id 7 needs --avro-wire-prefix confluent (that prefix carries the id), but --avro-wire-prefix is none");
        ParserSettings settings = parse("--input-format", "AVRO", "--avro-schema-file", schema, "--avro-wire-prefix", "confluent",
                "--avro-schema-id", "7").parserSettings();
        assertThat(settings.avroWirePrefix()).isEqualTo(AvroWirePrefix.CONFLUENT);
        assertThat(settings.avroSchemaId()).hasValue(7);
    }

    @Test
    void theSchemaTextTravelsInTheSettingsSoTaskManagersNeedNoFile() throws Exception {
        String schema = schemaFile();
        ParserSettings settings = parse("--input-format", "avro", "--avro-schema-file", schema).parserSettings();
        Files.delete(Path.of(schema));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(settings);
        }
        ParserSettings shipped;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            shipped = (ParserSettings) in.readObject();
        }
        assertThat(shipped.avroSchemaText()).isEqualTo(GeneratorSettings.avroSchemaText());
        assertThat(RecordParser.of(shipped)).isInstanceOf(AvroImpressionParser.class);
    }
}
