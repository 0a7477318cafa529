package io.impressiondedup.job;

import static io.impressiondedup.job.FieldOptionsTest.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.config.ParserSettings;
import io.impressiondedup.job.io.avro.AvroWirePrefix;
import io.impressiondedup.job.io.parsing.AvroImpressionParser;
import io.impressiondedup.job.io.parsing.RecordParser;
import io.impressiondedup.job.io.registry.SchemaIdKind;
import io.impressiondedup.operators.model.DeadLetterReason;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.model.RawKafkaRecord;
import io.impressiondedup.job.io.registry.SchemaRegistryApi;
import io.impressiondedup.job.io.registry.SchemaRegistrySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --avro-schema-registry-url} and the options beside it: checked where the options are parsed, each failure naming
 * the option at fault; the lookups each API and prefix make; the password never in what the job logs.
 */
class SchemaRegistryOptionsTest {

    static final String URL = "http://registry:8080/apis/ccompat/v7";

    @TempDir
    Path dir;

    @Test
    void theRegistryTakesThePlaceOfTheSchemaFileAndNeedsAPrefixThatCarriesTheId() throws Exception {
        Path schema = Files.writeString(dir.resolve("x.avsc"), "{\"type\": \"record\", \"name\": \"X\", \"fields\": []}");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-registry-url", URL, "--avro-wire-prefix", "confluent",
                "--avro-schema-file", schema.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--avro-schema-file and --avro-schema-registry-url exclude each other");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-registry-url", URL, "--avro-wire-prefix", "confluent",
                "--avro-schema-id", "3")).hasMessageStartingWith("--avro-schema-id and --avro-schema-registry-url exclude each other");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-registry-url", URL))
                .hasMessage("--avro-schema-registry-url needs a --avro-wire-prefix that carries the schema id (confluent, apicurio or"
                        + " apicurio-headers), but it is none");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-schema-file", schema.toString(), "--avro-schema-registry-api",
                "apicurio")).hasMessage("--avro-schema-registry-api applies only with --avro-schema-registry-url: set it, or remove it");
        assertThatThrownBy(() -> parse("--avro-schema-registry-url", URL)).hasMessageStartingWith(
                "--avro-schema-registry-url applies only with --input-format avro");
    }

    @Test
    void eachApiLooksUpTheIdsOfItsPrefixAndRefusesTheOthers() {
        assertThat(registry(URL + "/", "confluent", "confluent").lookupUri(7).toString()).isEqualTo(URL + "/schemas/ids/7");
        String v3 = "https://registry:8443/apis/registry/v3";
        assertThat(registry(v3, "apicurio", "confluent").lookupUri(7).toString()).isEqualTo(v3 + "/ids/contentIds/7");
        assertThat(registry(v3, "apicurio", "apicurio").lookupUri(1L << 40).toString()).isEqualTo(v3 + "/ids/globalIds/1099511627776");
        assertThat(registry(URL, "confluent", "confluent").lookupUri(0xFFFF_FFFFL).toString()).endsWith("/schemas/ids/4294967295");
        SchemaRegistrySettings headers = registry(v3, "apicurio", "apicurio-headers");
        assertThat(headers.lookupUri(SchemaIdKind.GLOBAL_ID, 5).toString()).isEqualTo(v3 + "/ids/globalIds/5");
        assertThat(headers.lookupUri(SchemaIdKind.CONTENT_ID, 5).toString()).isEqualTo(v3 + "/ids/contentIds/5");
        for (String prefix : new String[] {"apicurio", "apicurio-headers"}) {
            assertThatThrownBy(() -> registry(URL, "confluent", prefix)).isInstanceOf(InvalidOptionException.class)
                    .hasMessageStartingWith("--avro-schema-registry-api: Apicurio's global ids (of the apicurio and apicurio-headers wire"
                            + " prefixes) are looked up only by the apicurio API, not the confluent API");
        }
    }

    @Test
    void aUrlThatIsNoneOrCarriesCredentialsFailsNamingTheOption() {
        assertThatThrownBy(() -> registry("registry:8080", "confluent", "confluent")).isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--avro-schema-registry-url: 'registry:8080' is no http:// or https:// URL with a host");
        assertThatThrownBy(() -> registry("https://u:secret@registry/apis/ccompat/v7", "confluent", "confluent"))
                .hasMessageStartingWith("--avro-schema-registry-url: the URL holds credentials");
    }

    @Test
    void credentialsComeFromAFileGoOnlyOverHttpsAndAreNeverLogged() throws Exception {
        Path credentials = Files.writeString(dir.resolve("registry.credentials"), "dedup:s3cr3t:with-colon\n");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-wire-prefix", "confluent", "--avro-schema-registry-url", URL,
                "--avro-schema-registry-credentials-file", credentials.toString())).isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--avro-schema-registry-url: credentials would be sent in clear text to '" + URL + "': use https");
        Path noUser = Files.writeString(dir.resolve("bad.credentials"), ":nouser\n");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-wire-prefix", "confluent", "--avro-schema-registry-url",
                "https://registry", "--avro-schema-registry-credentials-file", noUser.toString()))
                .hasMessage("--avro-schema-registry-credentials-file " + noUser + " must hold one line user:password (a non-empty user"
                        + " before the first colon)");

        DedupJobConfig config = parse("--input-format", "avro", "--avro-wire-prefix", "confluent", "--avro-schema-registry-url",
                "https://registry/apis/ccompat/v7", "--avro-schema-registry-credentials-file", credentials.toString());
        SchemaRegistrySettings settings = config.parserSettings().schemaRegistry();
        assertThat(settings.toString()).contains("user dedup, password <redacted>").doesNotContain("s3cr3t");
        assertThat(config.describe()).contains("avro-schema-registry-credentials-file = " + credentials).doesNotContain("s3cr3t");
    }

    @Test
    void trustedCertificatesThatAreNoPemFailNamingTheOption() throws Exception {
        Path notPem = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(() -> parse("--input-format", "avro", "--avro-wire-prefix", "confluent", "--avro-schema-registry-url",
                "https://registry", "--avro-schema-registry-trusted-certificates", notPem.toString()))
                .isInstanceOf(InvalidOptionException.class)
                .hasMessageStartingWith("--avro-schema-registry-trusted-certificates: the trusted certificates are no PEM X.509 certificates");
    }

    @Test
    void theSettingsTravelToTheTaskManagersAndBuildARegistryParserThere() throws Exception {
        ParserSettings settings = parse("--input-format", "avro", "--avro-wire-prefix", "apicurio", "--avro-schema-registry-url",
                "http://registry:8080/apis/registry/v3", "--avro-schema-registry-api", "apicurio", "--avro-schema-registry-timeout", "3s")
                .parserSettings();
        ParserSettings shipped = InstantiationUtil.clone(settings, getClass().getClassLoader());
        assertThat(shipped.avroWirePrefix()).isEqualTo(AvroWirePrefix.APICURIO);
        assertThat(shipped.schemaRegistry().api()).isEqualTo(SchemaRegistryApi.APICURIO);
        assertThat(shipped.schemaRegistry().requestTimeout()).hasSeconds(3);
        assertThat(shipped.avroSchemaText()).isNull();
        assertThatThrownBy(shipped::avroFields).isInstanceOf(IllegalStateException.class);
        assertThat(RecordParser.of(shipped)).isInstanceOf(AvroImpressionParser.class);
    }

    @Test
    void aValueOfApicuriosHeadersModeWithoutAnEightByteIdHeaderIsMalformedNamingTheHeader() {
        RecordParser parser = RecordParser.of(parse("--input-format", "avro", "--avro-wire-prefix", "apicurio-headers",
                "--avro-schema-registry-url", "http://127.0.0.1:1/apis/registry/v3", "--avro-schema-registry-api", "apicurio")
                .parserSettings());
        byte[] value = {2, 'r'};
        ParsedRecord none = parser.parse(RawKafkaRecord.ofValue("in", 0, 0, value));
        assertThat(none.deadLetter().reason()).isEqualTo(DeadLetterReason.MALFORMED);
        assertThat(none.deadLetter().error()).isEqualTo("no header apicurio.value.globalId or apicurio.value.contentId with the schema id");
        ParsedRecord shortId = parser.parse(new RawKafkaRecord("in", 0, 1, 0L, null, value, new String[] {"apicurio.value.contentId"},
                new byte[][] {{0, 0, 0, 7}}));
        assertThat(shortId.deadLetter().error()).isEqualTo("header apicurio.value.contentId is 4 bytes, not an 8-byte schema id");
    }

    private static SchemaRegistrySettings registry(String url, String api, String prefix) {
        return parse("--input-format", "avro", "--avro-wire-prefix", prefix, "--avro-schema-registry-url", url,
                "--avro-schema-registry-api", api).parserSettings().schemaRegistry();
    }
}
