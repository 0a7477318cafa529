package io.impressiondedup.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The files of {@code deploy/observability/} on their own (no cluster): the rules are valid Prometheus rules, every
 * alert and panel is complete, and the PodMonitor scrapes the port the FlinkDeployment's reporter listens on. That
 * every metric they name is exported by a running job is {@link ClusterIT}'s to show.
 */
class ObservabilityPackTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    void theAlertRulesPassPromtoolCheckRulesWhereItIsInstalled() throws Exception {
        Optional<File> promtool = onPath("promtool");
        assumeTrue(promtool.isPresent(), "promtool is not on PATH (Debian/Ubuntu: apt-get install prometheus); "
                + "skipping `promtool check rules " + ObservabilityPack.RULES + "`");
        Process check = new ProcessBuilder(promtool.get().getPath(), "check", "rules", ObservabilityPack.RULES.toString())
                .redirectErrorStream(true).start();
        try {
            assertThat(check.waitFor(60, TimeUnit.SECONDS)).as("promtool check rules finished within 60 s").isTrue();
            String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(check.exitValue()).as(output).isZero();
            assertThat(output).contains("SUCCESS: " + ObservabilityPack.alertRules().size() + " rules found");
        } finally {
            check.destroyForcibly();
        }
    }

    @Test
    void everyAlertTheIssueAsksForExistsWithASeverityADurationAndWhatItMeans() throws Exception {
        Map<String, JsonNode> rules = ObservabilityPack.alertRules();
        assertThat(rules).containsKeys("ImpressionDedupEstimatedFppAboveConfigured", "ImpressionDedupShardStateCapReached",
                "ImpressionDedupLateRateHigh",
                "ImpressionDedupDeadLetterRateHigh", "ImpressionDedupCheckpointsFailing", "ImpressionDedupWatermarkStalled",
                "ImpressionDedupConsumerLagGrowing");
        List<String> incomplete = new ArrayList<>();
        rules.forEach((alert, rule) -> {
            for (String field : List.of("expr", "for", "labels/severity", "annotations/summary", "annotations/description")) {
                if (rule.at("/" + field).asText().isBlank()) {
                    incomplete.add(alert + " has no " + field);
                }
            }
            if (ObservabilityPack.namesIn(rule.path("expr").asText()).isEmpty()) {
                incomplete.add(alert + " names no Flink metric");
            }
        });
        assertThat(incomplete).isEmpty();
    }

    @Test
    void everyDashboardPanelQueriesAFlinkMetricOfTheSelectedJobs() throws Exception {
        Map<String, List<String>> queries = ObservabilityPack.dashboardQueries();
        assertThat(queries).containsKeys("Throughput", "Duplicates", "Late", "Dead letters by reason",
                "Estimated FPP against configured", "Filter fill", "State size", "Checkpoints", "End-to-end latency",
                "Consumer lag");
        List<String> wrong = new ArrayList<>();
        queries.forEach((panel, expressions) -> {
            if (expressions.isEmpty()) {
                wrong.add(panel + " has no query");
            }
            for (String expr : expressions) {
                if (ObservabilityPack.namesIn(expr).isEmpty()) {
                    wrong.add(panel + ": " + expr + " names no Flink metric");
                }
                if (!panel.startsWith("variable ") && !expr.contains("job_name=~\"$job_name\"")) {
                    wrong.add(panel + ": " + expr + " ignores the job_name variable");
                }
            }
        });
        assertThat(wrong).isEmpty();
    }

    @Test
    void thePodMonitorScrapesTheReporterPortOfTheFlinkDeployment() throws Exception {
        JsonNode deployment = YAML.readTree(Repository.root().resolve("deploy/k8s/impression-dedup.yaml").toFile());
        JsonNode podMonitor = ObservabilityPack.podMonitor();

        assertThat(podMonitor.path("kind").asText()).isEqualTo("PodMonitor");
        // Flink's native Kubernetes integration labels the pods app=<FlinkDeployment name>.
        assertThat(podMonitor.at("/spec/selector/matchLabels/app").asText()).isEqualTo(deployment.at("/metadata/name").asText());
        String portName = podMonitor.at("/spec/podMetricsEndpoints/0/port").asText();
        String reporterPort = deployment.at("/spec/flinkConfiguration").path("metrics.reporter.prom.port").asText();
        assertThat(reporterPort).as("metrics.reporter.prom.port of the FlinkDeployment").isNotBlank();
        List<String> scrapedPorts = new ArrayList<>();
        for (JsonNode container : deployment.at("/spec/podTemplate/spec/containers")) {
            for (JsonNode port : container.path("ports")) {
                if (port.path("name").asText().equals(portName)) {
                    scrapedPorts.add(container.path("name").asText() + ":" + port.path("containerPort").asText());
                }
            }
        }
        assertThat(scrapedPorts).as("container ports named '%s' in the FlinkDeployment's pod template", portName)
                .containsExactly("flink-main-container:" + reporterPort);
    }

    /** What ClusterIT holds the pack's selectors against: the label values as the reporter writes them. */
    @Test
    void aLabelMatcherSelectsOnlyTheValueTheReporterWrites() {
        String exposition = "# TYPE x gauge\n"
                + "flink_taskmanager_job_task_operator_currentInputWatermark{job_name=\"Impression_dedup:_a___b\",operator_name=\"Deduplicate_impressions\",} 5.0\n";
        var original = new ObservabilityPack.LabelMatcher("flink_taskmanager_job_task_operator_currentInputWatermark", "operator_name",
                false, "Deduplicate impressions", "test");
        var rewritten = new ObservabilityPack.LabelMatcher("flink_taskmanager_job_task_operator_currentInputWatermark", "operator_name",
                false, "Deduplicate_impressions", "test");
        var jobRegex = new ObservabilityPack.LabelMatcher("flink_taskmanager_job_task_operator_currentInputWatermark", "job_name",
                true, "Impression_dedup.*", "test");
        var otherMetric = new ObservabilityPack.LabelMatcher("flink_taskmanager_job_task_operator_late", "operator_name",
                false, "Deduplicate_impressions", "test");

        assertThat(ObservabilityPack.selectsSomeSeries(original, exposition)).isFalse();
        assertThat(ObservabilityPack.selectsSomeSeries(rewritten, exposition)).isTrue();
        assertThat(ObservabilityPack.selectsSomeSeries(jobRegex, exposition)).isTrue();
        assertThat(ObservabilityPack.selectsSomeSeries(otherMetric, exposition)).isFalse();
        assertThat(ObservabilityPack.exportedNames(exposition)).containsExactly("flink_taskmanager_job_task_operator_currentInputWatermark");
    }

    private static Optional<File> onPath(String program) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(dir -> new File(dir, program)).filter(File::canExecute).findFirst();
    }
}
