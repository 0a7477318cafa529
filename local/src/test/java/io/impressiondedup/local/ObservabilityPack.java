package io.impressiondedup.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of {@code deploy/observability/} as the tests read them: the Grafana dashboard's queries, the Prometheus
 * alert rules, and the Flink metric names they use, so a test can hold them against what a real job exports.
 */
final class ObservabilityPack {

    static final Path DIRECTORY = Repository.root().resolve("deploy/observability");
    static final Path DASHBOARD = DIRECTORY.resolve("impression-dedup-dashboard.json");
    static final Path RULES = DIRECTORY.resolve("impression-dedup-alerts.yaml");
    static final Path POD_MONITOR = DIRECTORY.resolve("impression-dedup-podmonitor.yaml");

    /** A Flink metric as its Prometheus reporter names it; a name inside a label matcher or a string never starts so. */
    private static final Pattern FLINK_METRIC = Pattern.compile("\\bflink_(?:jobmanager|taskmanager)_[A-Za-z0-9_]+");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private ObservabilityPack() {}

    /**
     * Every PromQL expression of the dashboard: panel title to its queries, and {@code variable <name>} to the query of
     * each query variable.
     */
    static Map<String, List<String>> dashboardQueries() throws IOException {
        JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
        Map<String, List<String>> queries = new TreeMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            List<String> expressions = new ArrayList<>();
            panel.path("targets").forEach(target -> expressions.add(target.path("expr").asText()));
            queries.put(panel.path("title").asText(), expressions);
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (!variable.path("type").asText().equals("query")) {
                continue; // a data source or constant variable holds no PromQL
            }
            JsonNode query = variable.path("query");
            String expression = query.isObject() ? query.path("query").asText() : query.asText();
            queries.put("variable " + variable.path("name").asText(), List.of(expression));
        }
        return queries;
    }

    /** The alert rules: alert name to the rule's node (expr, for, labels, annotations). */
    static Map<String, JsonNode> alertRules() throws IOException {
        Map<String, JsonNode> rules = new TreeMap<>();
        for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                rules.put(rule.path("alert").asText(rule.path("record").asText()), rule);
            }
        }
        return rules;
    }

    static JsonNode podMonitor() throws IOException {
        return YAML.readTree(POD_MONITOR.toFile());
    }

    /** Each Flink metric name the dashboard or a rule uses (also only inside {@code absent()}), to where it is used. */
    /**
     * Whether {@code metric} is one of the schema registry reader's (Avro input with {@code --avro-schema-registry-url}),
     * which only a job reading a registry exports: checked against such a job ({@code SchemaRegistryClusterIT}), the others
     * against {@code ClusterIT}'s.
     */
    static boolean readsSchemaRegistry(String metric) {
        return metric.startsWith("flink_taskmanager_job_task_operator_deserializer_schema_")
                || metric.startsWith("flink_taskmanager_job_task_operator_deserializer_writer_schema_");
    }

    static Map<String, Set<String>> metricNames() throws IOException {
        Map<String, Set<String>> names = new TreeMap<>();
        dashboardQueries().forEach((panel, expressions) ->
                expressions.forEach(expr -> namesIn(expr).forEach(name -> names.computeIfAbsent(name, n -> new TreeSet<>())
                        .add("dashboard panel '" + panel + "'"))));
        alertRules().forEach((alert, rule) -> namesIn(rule.path("expr").asText()).forEach(name ->
                names.computeIfAbsent(name, n -> new TreeSet<>()).add("rule " + alert)));
        return names;
    }

    /** A label matcher of a selector, {@code metric{label="value"}} or {@code =~"regex"}, and where it is used. */
    record LabelMatcher(String metric, String label, boolean regex, String value, String usedIn) {

        /** Whether a series with this label value is selected (PromQL regexes match the whole value). */
        boolean selects(String labelValue) {
            return regex ? Pattern.compile(value).matcher(labelValue).matches() : value.equals(labelValue);
        }

        @Override
        public String toString() {
            return metric + "{" + label + (regex ? "=~" : "=") + "\"" + value + "\"} in " + usedIn;
        }
    }

    private static final Pattern SELECTOR = Pattern.compile("\\b(flink_(?:jobmanager|taskmanager)_[A-Za-z0-9_]+)\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!=|!~|=)\\s*\"([^\"]*)\"");

    /**
     * The positive label matchers ({@code =}, {@code =~}) of the dashboard's and the rules' selectors, except those
     * holding a Grafana variable ({@code $job_name}): each must select some series of a running job, or the panel or
     * alert silently sees nothing (the reporter rewrites label values, see the rules file).
     */
    static List<LabelMatcher> labelMatchers() throws IOException {
        List<LabelMatcher> matchers = new ArrayList<>();
        dashboardQueries().forEach((panel, expressions) -> expressions.forEach(expr ->
                matchersIn(expr, "dashboard panel '" + panel + "'", matchers)));
        alertRules().forEach((alert, rule) -> matchersIn(rule.path("expr").asText(), "rule " + alert, matchers));
        return matchers;
    }

    private static void matchersIn(String expression, String usedIn, List<LabelMatcher> matchers) {
        Matcher selector = SELECTOR.matcher(expression);
        while (selector.find()) {
            Matcher m = MATCHER.matcher(selector.group(2));
            while (m.find()) {
                if ((m.group(2).equals("=") || m.group(2).equals("=~")) && !m.group(3).contains("$")) {
                    matchers.add(new LabelMatcher(selector.group(1), m.group(1), m.group(2).equals("=~"), m.group(3), usedIn));
                }
            }
        }
    }

    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /** Whether some series of {@code exposition} is selected by {@code matcher}. */
    static boolean selectsSomeSeries(LabelMatcher matcher, String exposition) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith(matcher.metric() + "{")) {
                Matcher label = LABEL.matcher(line.substring(0, line.indexOf('}') + 1));
                while (label.find()) {
                    if (label.group(1).equals(matcher.label()) && matcher.selects(label.group(2))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    static Set<String> namesIn(String expression) {
        Set<String> names = new TreeSet<>();
        Matcher m = FLINK_METRIC.matcher(expression);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /**
     * The series names of a Prometheus text exposition ({@code name{labels} value} lines, comments skipped); a summary
     * (Flink's histograms) also gives its {@code _count} and {@code _sum}.
     */
    static Set<String> exportedNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int end = 0;
            while (end < line.length() && line.charAt(end) != '{' && line.charAt(end) != ' ') {
                end++;
            }
            names.add(line.substring(0, end));
        }
        return names;
    }

    static String read(Path file) throws IOException {
        return Files.readString(file);
    }
}
