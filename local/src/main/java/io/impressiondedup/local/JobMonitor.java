package io.impressiondedup.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.impressiondedup.operators.dedup.DedupOperator;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads checkpoint sizes and the dedup gauges from the REST API while the job runs; each figure is -1
 * until it has been read once.
 */
final class JobMonitor {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final String base;
    private final String jobId;
    long checkpointedBytes = -1;
    long checkpointFullBytes = -1;
    long bloomBytes = -1;
    long liveBuckets = -1;

    JobMonitor(int port, String jobId) {
        this.base = "http://127.0.0.1:" + port;
        this.jobId = jobId;
    }

    void poll() {
        try {
            JsonNode checkpoints = get("/jobs/" + jobId + "/checkpoints");
            JsonNode completed = checkpoints.path("latest").path("completed");
            if (!completed.isMissingNode() && !completed.isNull()) {
                checkpointedBytes = completed.path("checkpointed_size").asLong(checkpointedBytes);
                checkpointFullBytes = completed.path("state_size").asLong(checkpointFullBytes);
            }
            JsonNode vertices = get("/jobs/" + jobId).path("vertices");
            for (JsonNode vertex : vertices) {
                if (vertex.path("name").asText().contains(DedupOperator.NAME)) {
                    String prefix = "/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/subtasks/metrics";
                    List<String> wanted = new ArrayList<>();
                    for (JsonNode available : get(prefix)) {
                        String id = available.path("id").asText();
                        if (id.endsWith(".bloom-bytes") || id.endsWith(".live-buckets")) {
                            wanted.add(id);
                        }
                    }
                    if (wanted.isEmpty()) {
                        continue;
                    }
                    for (JsonNode metric : get(prefix + "?agg=sum&get=" + encode(String.join(",", wanted)))) {
                        if (metric.path("id").asText().endsWith("bloom-bytes")) {
                            bloomBytes = (long) metric.path("sum").asDouble();
                        } else if (metric.path("id").asText().endsWith("live-buckets")) {
                            liveBuckets = (long) metric.path("sum").asDouble();
                        }
                    }
                }
            }
        } catch (Exception e) {
            // The REST API is a convenience for the report; the job's result does not depend on it.
        }
    }

    /**
     * Whether every subtask of the dedup operator has an input watermark (the REST API shows {@code
     * Long.MIN_VALUE} until it has one); false while the REST API cannot tell.
     */
    boolean everyDedupSubtaskHasAWatermark() {
        try {
            for (JsonNode vertex : get("/jobs/" + jobId).path("vertices")) {
                if (vertex.path("name").asText().contains(DedupOperator.NAME)) {
                    JsonNode watermarks = get("/jobs/" + jobId + "/vertices/" + vertex.path("id").asText() + "/watermarks");
                    int subtasks = vertex.path("parallelism").asInt(-1);
                    int withWatermark = 0;
                    for (JsonNode watermark : watermarks) {
                        if (watermark.path("id").asText().endsWith(".currentInputWatermark")
                                && Long.parseLong(watermark.path("value").asText(Long.toString(Long.MIN_VALUE))) > Long.MIN_VALUE) {
                            withWatermark++;
                        }
                    }
                    return subtasks > 0 && withWatermark == subtasks;
                }
            }
        } catch (Exception e) {
            // Not yet answered: the caller asks again.
        }
        return false;
    }

    private JsonNode get(String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(2)).build(),
                HttpResponse.BodyHandlers.ofString());
        return json.readTree(response.body());
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
