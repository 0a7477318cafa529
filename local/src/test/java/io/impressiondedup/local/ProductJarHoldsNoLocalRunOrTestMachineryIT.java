package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.impressiondedup.testdata.GeneratedRecord;
import io.impressiondedup.testdata.generate.GeneratorSettings;
import io.impressiondedup.testdata.generate.ImpressionGenerator;
import io.impressiondedup.testdata.RecordClass;
import io.impressiondedup.testdata.generate.ValueFormat;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The product, {@code job/target/dedup-job.jar}, holds the job and what it needs on a cluster, and
 * nothing of this module: no local run, no in-JVM broker (Kafka's Scala server, its Raft, metadata
 * and controller classes), no generator or verifier. In a reactor build this runs after the job
 * module has been packaged.
 */
class ProductJarHoldsNoLocalRunOrTestMachineryIT {

    static final List<String> FORBIDDEN_PREFIXES = List.of(
            "io/impressiondedup/job/local/",
            "io/impressiondedup/local/",
            "io/impressiondedup/testdata/",
            "org/apache/kafka/raft/",
            "org/apache/kafka/metadata/",
            "org/apache/kafka/controller/",
            // Avro is relocated (io/impressiondedup/shaded/avro/): a cluster's own Avro must not meet the job's.
            "org/apache/avro/",
            // No Flink format: its table factories would be registered from the job's jar.
            "org/apache/flink/formats/");

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
                .filteredOn(ProductJarHoldsNoLocalRunOrTestMachineryIT::forbidden)
                .isEmpty();
    }

    /**
     * The relocated Avro works: the jar's own Avro reader, loaded from the jar alone (with SLF4J, which the cluster
     * provides), parses the generator's schema and reads one of its records. Relocation rewrites class names in strings
     * too; a reflective lookup it missed would fail here, not on a cluster.
     */
    @Test
    void theJobJarsRelocatedAvroParsesASchemaAndReadsARecord() throws Exception {
        ClassLoader clusterProvided = new ClassLoader(ClassLoader.getPlatformClassLoader()) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (name.startsWith("org.slf4j.")) {
                    return ProductJarHoldsNoLocalRunOrTestMachineryIT.class.getClassLoader().loadClass(name);
                }
                throw new ClassNotFoundException(name);
            }
        };
        GeneratedRecord record = new ImpressionGenerator(GeneratorSettings.builder().count(50).seed(3).malformedShare(0)
                .format(ValueFormat.AVRO).build()).next();
        assertThat(record.recordClass).isEqualTo(RecordClass.UNIQUE);
        try (URLClassLoader jar = new URLClassLoader(new URL[] {Repository.jobJar().toUri().toURL()}, clusterProvided)) {
            Class<?> fields = jar.loadClass("io.impressiondedup.job.io.avro.AvroImpressionFields");
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object none = Enum.valueOf((Class) jar.loadClass("io.impressiondedup.job.io.avro.AvroWirePrefix"), "NONE");
            Object reader = fields.getConstructor(String.class, none.getClass(), OptionalInt.class, List.class, List.class).newInstance(
                    GeneratorSettings.avroSchemaText(), none, OptionalInt.empty(), List.of(List.of("requestId"), List.of("adId")), List.of("ts"));
            Method read = fields.getMethod("read", byte[].class);
            assertThat(read.invoke(reader, (Object) record.value)).isNull();
            assertThat(fields.getMethod("keyText", int.class).invoke(reader, 0)).isEqualTo(record.requestId);
            assertThat(jar.loadClass("io.impressiondedup.shaded.avro.Schema").getClassLoader()).isSameAs(jar);
        }
    }

    /** Under a forbidden prefix, or a class of the Scala broker (kafka-clients ships kafka/kafka-version.properties, which is fine). */
    static boolean forbidden(String entry) {
        return FORBIDDEN_PREFIXES.stream().anyMatch(entry::startsWith) || entry.startsWith("kafka/") && entry.endsWith(".class");
    }
}
