package org.apache.flink.connector.kafka.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The job's copy of {@link ExactlyOnceKafkaWriter} (its Javadoc says why there is one) stands in for the class of the
 * connector it was made from, and only that one: a connector of another version may have changed the class (or closed
 * its admin client itself), and the copy would then silently replace newer code with older.
 */
class ExactlyOnceKafkaWriterCopyTest {

    /** The connector the copy was made from. */
    static final String CONNECTOR_JAR = "flink-connector-kafka-5.0.0-2.2.jar";
    /** SHA-256 of that connector's own {@code ExactlyOnceKafkaWriter.class}. */
    static final String CONNECTOR_CLASS_SHA256 = "45b6a32679400840efd3aec1d157e1031391259ddc3a48abc4dd963d12cf1848";

    private static final String CLASS_FILE = "org/apache/flink/connector/kafka/sink/ExactlyOnceKafkaWriter.class";

    @Test
    void theCopyReplacesTheClassOfTheConnectorVersionItWasMadeFrom() throws Exception {
        Path connectorJar = Path.of(KafkaSink.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(connectorJar.getFileName().toString())
                .as("the Kafka connector on the class path; ExactlyOnceKafkaWriter.java (job/src/main) is a copy of %s's class:"
                        + " re-apply its change to this version's source, or drop the copy if this version closes its admin client",
                        CONNECTOR_JAR)
                .isEqualTo(CONNECTOR_JAR);
        try (JarFile jar = new JarFile(connectorJar.toFile())) {
            ZipEntry entry = jar.getEntry(CLASS_FILE);
            assertThat(entry).as("%s in %s", CLASS_FILE, connectorJar).isNotNull();
            try (InputStream in = jar.getInputStream(entry)) {
                assertThat(sha256(in.readAllBytes())).as("SHA-256 of the connector's own %s: the copy in job/src/main was made"
                        + " from another class", CLASS_FILE).isEqualTo(CONNECTOR_CLASS_SHA256);
            }
        }
    }

    @Test
    void theJobLoadsItsCopyNotTheConnectorsClass() throws Exception {
        URL loaded = ExactlyOnceKafkaWriter.class.getProtectionDomain().getCodeSource().getLocation();
        URL connector = KafkaSink.class.getProtectionDomain().getCodeSource().getLocation();
        assertThat(loaded).as("where ExactlyOnceKafkaWriter is loaded from").isNotEqualTo(connector);
        assertThat(ExactlyOnceKafkaWriter.class.getDeclaredMethod("closeAdminClient")).isNotNull();
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
