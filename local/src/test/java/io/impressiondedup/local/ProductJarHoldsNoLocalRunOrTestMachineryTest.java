package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The product, {@code job/target/dedup-job.jar}, holds the job and what it needs on a cluster, and
 * nothing of this module: no local run, no in-JVM broker (Kafka's Scala server, its Raft, metadata
 * and controller classes), no generator or verifier. In a reactor build this runs after the job
 * module has been packaged.
 */
class ProductJarHoldsNoLocalRunOrTestMachineryTest {

    static final List<String> FORBIDDEN_PREFIXES = List.of(
            "io/impressiondedup/job/local/",
            "io/impressiondedup/local/",
            "io/impressiondedup/testdata/",
            "org/apache/kafka/raft/",
            "org/apache/kafka/metadata/",
            "org/apache/kafka/controller/");

    @Test
    void theShadedJobJarHoldsNoLocalRunNoBrokerAndNoTestData() throws Exception {
        Path jar = Repository.jobJar();
        assertThat(jar).as("the shaded job jar (package the job module first)").isRegularFile();
        List<String> entries;
        try (JarFile file = new JarFile(jar.toFile())) {
            entries = file.stream().map(ZipEntry::getName).toList();
        }
        assertThat(entries).as("the job itself").contains("io/impressiondedup/job/DedupJob.class");

        assertThat(entries).as("entries of %s under %s, or classes under kafka/", jar, FORBIDDEN_PREFIXES)
                .filteredOn(ProductJarHoldsNoLocalRunOrTestMachineryTest::forbidden)
                .isEmpty();
    }

    /** Under a forbidden prefix, or a class of the Scala broker (kafka-clients ships kafka/kafka-version.properties, which is fine). */
    static boolean forbidden(String entry) {
        return FORBIDDEN_PREFIXES.stream().anyMatch(entry::startsWith) || entry.startsWith("kafka/") && entry.endsWith(".class");
    }
}
