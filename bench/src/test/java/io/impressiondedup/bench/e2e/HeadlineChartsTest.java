package io.impressiondedup.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plots' parsers read the committed results files as docs/BENCHMARKS.md quotes them. */
class HeadlineChartsTest {

    private static List<String> results(String file) throws IOException {
        return Files.readAllLines(Path.of("results", file)); // the module's directory is the tests' working directory
    }

    @Test
    void headlineRatiosPerVariant() throws IOException {
        HeadlineCharts.Section run = HeadlineCharts.sections(results("2026-11-26-cluster-headline.txt")).get("");
        HeadlineCharts.Row rocksdb = run.rows().get("dedup-rocksdb");
        assertThat(rocksdb.steady()).isEqualTo(316322);
        assertThat(rocksdb.vsKeyed()).isEqualTo(0.86);
        assertThat(rocksdb.vsByte()).isEqualTo(0.77);
        assertThat(rocksdb.keyedCpuOverThis()).isEqualTo(0.87);
        assertThat(run.rows()).hasSize(8).containsKeys("byte-pass-through", "keyed-pass-through", "dedup-hashmap-before");
        assertThat(HeadlineCharts.beforeCommit(results("2026-11-26-cluster-headline.txt"))).isEqualTo("e08560c");
    }

    @Test
    void restoredStateRunsBySection() throws IOException {
        List<String> lines = results("2026-11-26-cluster-50m-state-settings.txt");
        HeadlineCharts.Section c = HeadlineCharts.section(lines, "(C)", "dedup-rocksdb-restored");
        assertThat(HeadlineCharts.impressionsInState(lines)).isEqualTo(50_000_000L);
        assertThat(c.rows().get("dedup-rocksdb-restored-cache256mckpt30s").vsKeyed()).isEqualTo(0.44);
        assertThat(c.rows().get("dedup-rocksdb-restored").vsByte()).isNaN(); // "n/a": no byte pass-through in that run
        assertThat(HeadlineCharts.variantSettings(c.lines())).containsEntry("dedup-rocksdb-restored-cache256mckpt30s",
                "--page-cache-bytes 256mb --checkpoint-interval 30s");

        List<String> defaults = results("2026-11-27-flink-defaults-20m.txt");
        assertThat(HeadlineCharts.impressionsInState(defaults)).isEqualTo(20_000_000L);
        String restored = "dedup-rocksdb-restored";
        assertThat(HeadlineCharts.section(defaults, "A", restored).rows().get(restored).vsKeyed()).isEqualTo(0.19);
        assertThat(HeadlineCharts.section(defaults, "B", restored).rows().get(restored).vsKeyed()).isEqualTo(0.27);
    }

    @Test
    void newestFileOfEachKind() throws IOException {
        assertThat(HeadlineCharts.latest(Path.of("results"), HeadlineCharts.HEADLINE).getFileName().toString())
                .matches("\\d{4}-\\d{2}-\\d{2}-cluster-headline\\.txt"); // not ...-headline-delayed.txt, ...-headline-3rounds.txt
    }

    @Test
    void bytesPerImpressionOfBothFormats() throws IOException {
        assertThat(HeadlineCharts.stateBytes(results("2026-11-26-state-formats-bytes.txt"))).extracting(r -> String.join(" ", r))
                .containsExactly("bloom heap 3.05", "bloom rocksdb 3.26", "fingerprints heap 1.96", "fingerprints rocksdb 1.96");
        assertThat(HeadlineCharts.checkpointBytesPerOutput(results("2026-11-26-cluster-state-formats-cached.txt"), 4_000_000))
                .containsEntry("dedup-rocksdb", List.of(8.87, 12.63, 15.76))
                .containsEntry("dedup-fingerprints-rocksdb", List.of(4.64, 3.88, 4.44));
    }

    /** Each measured point of the state-size plots names a variant that a run of its newest results file has. */
    @Test
    void everyStatePointOnFlinkDefaultsIsInItsResultsFile() throws IOException {
        for (HeadlineCharts.StatePoint point : HeadlineCharts.DEFAULTS_STATE_POINTS) {
            List<String> lines = Files.readAllLines(HeadlineCharts.latest(Path.of("results"), point.file()));
            assertThat(HeadlineCharts.sections(lines).values().stream().anyMatch(section -> section.rows().containsKey(point.variant())))
                    .as("%s: a run of its newest file has the variant", point).isTrue();
        }
    }

    @Test
    void recoverySecondsOfEachFormatFromItsSection() throws IOException {
        List<String> lines = results("2026-11-28-flink-defaults-50m-recovery.txt");
        assertThat(HeadlineCharts.killToRunning(lines, "Bloom")).isEqualTo(31.8);
        assertThat(HeadlineCharts.killToRunning(lines, "Fingerprints")).isEqualTo(25.9);
        assertThat(HeadlineCharts.killToRunning(results("2026-12-06-flink-defaults-200m-recovery.txt"), "")).isEqualTo(26.5);
        assertThat(HeadlineCharts.killToRunning(results("2026-12-06-flink-defaults-200m-bloom-recovery.txt"), "")).isEqualTo(22.3);
        for (HeadlineCharts.RecoveryPoint point : HeadlineCharts.DEFAULTS_RECOVERY_POINTS) {
            assertThat(HeadlineCharts.killToRunning(Files.readAllLines(HeadlineCharts.latest(Path.of("results"), point.file())),
                    point.section())).as(point.toString()).isPositive();
        }
    }
}
