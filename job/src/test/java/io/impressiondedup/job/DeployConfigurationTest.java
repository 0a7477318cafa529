package io.impressiondedup.job;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.RocksDbDefaults;
import io.impressiondedup.operators.dedup.store.PageCacheBudget;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.BlobServerOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.HighAvailabilityOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.RpcOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kubernetes manifests in {@code deploy/k8s} cannot be applied here (no cluster), so what can go
 * stale in them without anyone noticing is checked against the code: the job arguments parse, the
 * Flink version and image match the one the job is built against, and every Flink option is one
 * Flink knows (a typo in a key is otherwise silently ignored by Flink). The same check covers the
 * cluster configuration of {@code deploy/conf}.
 */
class DeployConfigurationTest {

    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    static final Path K8S = REPO.resolve("deploy/k8s");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /** Options whose keys are free-form or belong to the operator, not to Flink's option classes. */
    /** Keys no Flink option declares; the job's own (dedup.) are checked by the job's option parsing above. */
    static final List<String> UNCHECKED_PREFIXES = List.of("metrics.reporter.", "kubernetes.operator.", "dedup.");

    @Test
    void theJobArgumentsParseWithTheSecretsFileMountedWhereTheyPointTo(@TempDir Path dir) throws Exception {
        JsonNode job = deployment().path("spec").path("job");
        assertThat(job.path("entryClass").asText()).isEqualTo(DedupJob.class.getName());

        JsonNode secret = YAML.readTree(K8S.resolve("kafka-client-secret.example.yaml").toFile());
        Map.Entry<String, JsonNode> file = secret.path("stringData").fields().next();
        Path mounted = dir.resolve(file.getKey());
        Files.writeString(mounted, file.getValue().asText());

        List<String> args = new ArrayList<>();
        for (JsonNode arg : job.path("args")) {
            args.add(arg.asText());
        }
        int config = args.indexOf("--config");
        assertThat(config).as("the secrets file is read through --config").isNotNegative();
        assertThat(args.get(config + 1)).endsWith("/" + file.getKey());
        args.set(config + 1, mounted.toString());
        int fingerprint = args.indexOf("--fingerprint-secret-file");
        assertThat(fingerprint).as("the manifest keys the digests with a mounted secret").isNotNegative();
        String fingerprintPath = args.get(fingerprint + 1);
        assertThat(mountPaths()).as("mounts of the pod template the JobManager and TaskManagers share")
                .contains(fingerprintPath.substring(0, fingerprintPath.lastIndexOf('/')));
        Path fingerprintFile = Files.writeString(dir.resolve("fingerprint.secret"),
                FingerprintSecretAndShardCapOptionsTest.SECRET + "\n");
        args.set(fingerprint + 1, fingerprintFile.toString());

        org.apache.flink.configuration.Configuration flinkConfiguration = new org.apache.flink.configuration.Configuration();
        deployment().path("spec").path("flinkConfiguration").fields()
                .forEachRemaining(e -> flinkConfiguration.setString(e.getKey(), e.getValue().asText()));
        DedupJobConfig parsed = DedupJobConfig.fromSources(args.toArray(new String[0]), flinkConfiguration);
        assertThat(parsed.kafkaProperties()).containsKeys("security.protocol", "sasl.mechanism", "sasl.jaas.config");
        // Options given only in flinkConfiguration, as dedup.<option> and as Flink's own checkpoint interval, are the job's.
        assertThat(parsed.dedupSettings().plan().capacityPerBucket()).isEqualTo(500_000_000L);
        assertThat(parsed.checkpointInterval()).isEqualTo(java.time.Duration.ofSeconds(60));
    }

    /** The mount paths of the main container in the pod template shared by the JobManager and TaskManager pods. */
    private static List<String> mountPaths() throws Exception {
        JsonNode spec = deployment().path("spec");
        assertThat(spec.path("jobManager").has("podTemplate") || spec.path("taskManager").has("podTemplate"))
                .as("a JobManager or TaskManager pod template of its own would replace the shared one's mounts").isFalse();
        List<String> paths = new ArrayList<>();
        for (JsonNode container : spec.path("podTemplate").path("spec").path("containers")) {
            for (JsonNode mount : container.path("volumeMounts")) {
                paths.add(mount.path("mountPath").asText());
            }
        }
        return paths;
    }

    @Test
    void theFlinkVersionAndImageAreTheOnesTheJobIsBuiltAgainst() throws Exception {
        String flinkVersion = pomProperty("flink.version");
        String[] parts = flinkVersion.split("\\.");
        JsonNode spec = deployment().path("spec");
        assertThat(spec.path("flinkVersion").asText()).isEqualTo("v" + parts[0] + "_" + parts[1]);
        assertThat(Files.readString(K8S.resolve("Dockerfile"))).containsPattern("(?m)^FROM flink:" + Pattern.quote(flinkVersion) + "-java17$");
    }

    /**
     * The manifest runs the jar the Dockerfile copies, the Dockerfile copies the jar the job module builds, and the image
     * the manifest names is the one the Dockerfile and the docs tell users to build (the registry is theirs to choose).
     */
    @Test
    void theManifestRunsTheJarTheDockerfileCopiesFromTheBuildUnderTheImageTheDocsBuild() throws Exception {
        String dockerfile = Files.readString(K8S.resolve("Dockerfile"));
        java.util.regex.Matcher copy = Pattern.compile("(?m)^COPY (?:--chown=\\S+ )?(\\S+) (\\S+)$").matcher(dockerfile);
        assertThat(copy.find()).as("a COPY of the job jar in the Dockerfile").isTrue();
        String shadedJar = "job/target/" + Files.readString(REPO.resolve("job/pom.xml"))
                .replaceAll("(?s).*<finalName>([^<]+)</finalName>.*", "$1") + ".jar";
        assertThat(copy.group(1)).as("the jar the Dockerfile copies").isEqualTo(shadedJar);
        assertThat(deployment().path("spec").path("job").path("jarURI").asText()).isEqualTo("local://" + copy.group(2));

        String image = deployment().path("spec").path("image").asText();
        String nameAndTag = image.substring(image.lastIndexOf('/') + 1);
        assertThat(nameAndTag).as("the manifest's image, without its registry").isEqualTo("impression-dedup:" + releaseVersion());
        assertThat(dockerfile).contains("-t <registry>/" + nameAndTag + " .");
        assertThat(Files.readString(REPO.resolve("deploy/README.md"))).contains("-t <registry>/" + nameAndTag + " .");
    }

    /** The project's version without -SNAPSHOT: the tag of the image users build from a release. */
    private static String releaseVersion() throws Exception {
        String pom = Files.readString(REPO.resolve("pom.xml"));
        java.util.regex.Matcher version = Pattern.compile("</parent>|<artifactId>impression-dedup-parent</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(pom);
        while (version.find()) {
            if (version.group(1) != null) {
                return version.group(1).replace("-SNAPSHOT", "");
            }
        }
        throw new AssertionError("no project version in pom.xml");
    }

    @Test
    void upgradesAndRescalesGoThroughASavepoint() throws Exception {
        JsonNode job = deployment().path("spec").path("job");
        assertThat(job.path("upgradeMode").asText()).isEqualTo("savepoint");
        assertThat(job.path("parallelism").asInt()).isPositive();
    }

    @Test
    void restartsBackOffExponentiallyOnTheClusterAndOnKubernetes() throws Exception {
        JsonNode cluster = YAML.readTree(Files.readString(REPO.resolve("deploy/conf/config.yaml")).replace("@RUN_DIR@", "/tmp/run"));
        assertThat(cluster.path("restart-strategy").path("type").asText()).isEqualTo("exponential-delay");
        assertThat(cluster.path("restart-strategy").path("exponential-delay").path("max-backoff").asText()).isEqualTo("1 min");
        JsonNode kubernetes = deployment().path("spec").path("flinkConfiguration");
        assertThat(kubernetes.path("restart-strategy.type").asText()).isEqualTo("exponential-delay");
    }

    @Test
    void everyFlinkConfigurationKeyIsAnOptionFlinkKnows() throws Exception {
        Set<String> known = knownFlinkKeys();
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> keys = deployment().path("spec").path("flinkConfiguration").fieldNames(); keys.hasNext(); ) {
            String key = keys.next();
            if (UNCHECKED_PREFIXES.stream().noneMatch(key::startsWith) && !known.contains(key)) {
                unknown.add(key);
            }
        }
        assertThat(unknown).as("Flink configuration keys no Flink option declares").isEmpty();
    }

    @Test
    void everyKeyOfTheClusterConfigurationsIsAnOptionFlinkKnows() throws Exception {
        Set<String> known = knownFlinkKeys();
        for (String file : List.of("deploy/conf/config.yaml", "bench/conf/flink-defaults.yaml")) {
            List<String> keys = new ArrayList<>();
            // As deploy/local/cluster.sh does before starting the cluster.
            String config = Files.readString(REPO.resolve(file)).replace("@RUN_DIR@", "/tmp/run");
            flatten("", YAML.readTree(config), keys);
            assertThat(keys).as(file).hasSizeGreaterThan(15);
            assertThat(keys.stream().filter(k -> UNCHECKED_PREFIXES.stream().noneMatch(k::startsWith) && !known.contains(k)))
                    .as("keys of " + file + " no Flink option declares").isEmpty();
        }
    }

    @Test
    void theJobSetsTheRocksDbOptionsItReliesOnAndNoClusterConfigurationOfOursRepeatsThem() throws Exception {
        List<String> jobsKeys = RocksDbDefaults.VALUES.stream().map(value -> value.option().key()).toList();
        for (String file : List.of("deploy/conf/config.yaml", "bench/conf/flink-defaults.yaml", "deploy/k8s/impression-dedup.yaml")) {
            String config = Files.readString(REPO.resolve(file));
            List<String> keys = new ArrayList<>();
            flatten("", YAML.readTree(config.replace("@RUN_DIR@", "/tmp/run")), keys);
            assertThat(keys.stream().filter(k -> jobsKeys.stream().anyMatch(k::endsWith)))
                    .as("%s sets what the job sets itself (RocksDbDefaults): one place for each value", file).isEmpty();
        }
    }

    /**
     * The consumer weights are a TaskManager setting a job cannot make (PageCacheBudget): each cluster configuration this
     * project ships gives the page tier three quarters of a slot's managed memory, and Flink reads them as those weights.
     */
    @Test
    void theClustersWeShipGiveThePageTierThreeQuartersOfEachSlotsManagedMemory() throws Exception {
        String key = TaskManagerOptions.MANAGED_MEMORY_CONSUMER_WEIGHTS.key();
        JsonNode cluster = YAML.readTree(Files.readString(REPO.resolve("deploy/conf/config.yaml")).replace("@RUN_DIR@", "/tmp/run"));
        JsonNode nested = cluster;
        for (String part : key.split("\\.")) {
            nested = nested.path(part);
        }
        String kubernetes = deployment().path("spec").path("flinkConfiguration").path(key).asText();
        for (String weights : List.of(nested.asText(), kubernetes)) {
            assertThat(weights).as("%s of a cluster this project ships", key).isEqualTo(PageCacheBudget.TIER_CONSUMER_WEIGHTS);
            org.apache.flink.configuration.Configuration parsed = new org.apache.flink.configuration.Configuration();
            parsed.setString(key, weights);
            Map<String, String> byConsumer = parsed.get(TaskManagerOptions.MANAGED_MEMORY_CONSUMER_WEIGHTS);
            assertThat(Integer.parseInt(byConsumer.get("OPERATOR"))).as("the tier's weight against RocksDB's")
                    .isEqualTo(3 * Integer.parseInt(byConsumer.get("STATE_BACKEND")));
        }
    }

    /** config.yaml nests keys ({@code a: {b: 1}} is {@code a.b}). */
    static void flatten(String prefix, JsonNode node, List<String> keys) {
        if (!node.isObject()) {
            keys.add(prefix);
            return;
        }
        node.fields().forEachRemaining(e -> flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), e.getValue(), keys));
    }

    static JsonNode deployment() throws Exception {
        return YAML.readTree(K8S.resolve("impression-dedup.yaml").toFile());
    }

    static String pomProperty(String name) throws Exception {
        Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(REPO.resolve("pom.xml")));
        assertThat(m.find()).as("property %s in the root pom", name).isTrue();
        return m.group(1).trim();
    }

    static Set<String> knownFlinkKeys() throws IllegalAccessException {
        Set<String> keys = new HashSet<>();
        for (Class<?> options : List.of(CheckpointingOptions.class, StateBackendOptions.class, TaskManagerOptions.class,
                JobManagerOptions.class, HighAvailabilityOptions.class, MetricOptions.class, RestartStrategyOptions.class,
                CoreOptions.class, PipelineOptions.class, RocksDBOptions.class, RocksDBConfigurableOptions.class, RestOptions.class,
                HeartbeatManagerOptions.class, BlobServerOptions.class, WebOptions.class, RpcOptions.class)) {
            for (Field field : options.getFields()) {
                if (Modifier.isStatic(field.getModifiers()) && ConfigOption.class.isAssignableFrom(field.getType())) {
                    ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                    keys.add(option.key());
                    for (FallbackKey fallback : option.fallbackKeys()) {
                        keys.add(fallback.getKey());
                    }
                }
            }
        }
        return keys;
    }
}
