package io.impressiondedup.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.InvalidOptionException;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import io.impressiondedup.operators.dedup.DedupOperator;
import io.impressiondedup.operators.model.DeadLetter;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ParsedRecord;
import io.impressiondedup.operators.stats.StatsCombiner;
import io.impressiondedup.operators.stats.StatsPreAggregator;
import io.impressiondedup.operators.stats.StatsRow;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.memory.ManagedMemoryUseCase;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.graph.StreamConfig;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * The job's topology. Without {@code --stats-topic} it is the one savepoints were taken of; with it, the stats
 * operators are added under their own uids, each pre-aggregator chained to the operator it counts (no
 * per-record shuffle for the stats). The dedup operator gets a share of its slot's managed memory beside RocksDB's.
 */
class JobTopologyTest {

    private static final List<String> BASE = List.of("--bootstrap-servers", "localhost:9092", "--input-topic", "in",
            "--output-topic", "out", "--dlq-topic", "dlq", "--capacity", "1000000");

    @Test
    void withoutAStatsTopicTheTopologyHasNoStatsOperator() {
        StreamGraph graph = streamGraph(DedupJobConfig.parse(BASE.toArray(new String[0])));

        assertThat(uids(graph)).containsExactlyInAnyOrder(KafkaConnectors.SOURCE_UID, RouteParsedRecords.UID, DedupOperator.UID,
                "test-output", "test-dead-letters");
    }

    @Test
    void withAStatsTopicThePreAggregatorsAreChainedToTheOperatorsTheyCount() {
        StreamGraph graph = streamGraph(config("--stats-topic", "stats", "--stats-delay", "30min"));

        assertThat(uids(graph)).contains(StatsPreAggregator.OUTCOMES_UID, StatsPreAggregator.DEAD_LETTERS_UID, StatsCombiner.UID,
                "test-stats");
        JobGraph jobGraph = graph.getJobGraph();
        assertThat(vertexHolding(jobGraph, DedupOperator.NAME).getName()).contains(StatsPreAggregator.OUTCOMES_NAME);
        assertThat(vertexHolding(jobGraph, RouteParsedRecords.NAME).getName()).contains(StatsPreAggregator.DEAD_LETTERS_NAME);
        assertThat(vertexHolding(jobGraph, StatsCombiner.NAME).getName()).doesNotContain(StatsPreAggregator.OUTCOMES_NAME);
    }

    /**
     * The page caches' off-heap tier lives in the operator's share of its slot's managed memory: the operator declares it, so
     * Flink's fractions give it half of the slot's with the default consumer weights, RocksDB the other half.
     */
    @Test
    void theDedupOperatorGetsHalfOfItsSlotsManagedMemoryAndRocksDbTheOtherHalf() {
        DedupJobConfig job = DedupJobConfig.parse(BASE.toArray(new String[0]));
        StreamGraph graph = streamGraph(job);
        StreamNode dedup = graph.getStreamNodes().stream().filter(n -> DedupOperator.UID.equals(n.getTransformationUID())).findFirst()
                .orElseThrow();
        assertThat(dedup.getManagedMemoryOperatorScopeUseCaseWeights()).containsKey(DedupOperator.MANAGED_MEMORY_USE_CASE);

        JobVertex vertex = vertexHolding(graph.getJobGraph(), DedupOperator.NAME);
        StreamConfig config = new StreamConfig(vertex.getConfiguration());
        Configuration jobConfiguration = DedupJob.flinkConfiguration(job); // where the job's rocksdb is said
        Configuration flinkDefaults = new Configuration();
        ClassLoader loader = getClass().getClassLoader();
        assertThat(config.getManagedMemoryFractionOperatorUseCaseOfSlot(DedupOperator.MANAGED_MEMORY_USE_CASE, jobConfiguration,
                flinkDefaults, loader)).isEqualTo(0.5);
        assertThat(config.getManagedMemoryFractionOperatorUseCaseOfSlot(ManagedMemoryUseCase.STATE_BACKEND, jobConfiguration,
                flinkDefaults, loader)).isEqualTo(0.5);
    }

    @Test
    void aStatsTopicThatIsAlsoAnotherTopicOfTheJobIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> config("--stats-topic", "dlq")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("--stats-topic dlq must differ");
        assertThatThrownBy(() -> config("--stats-delay", "-1h")).isInstanceOf(InvalidOptionException.class)
                .hasMessageContaining("stats-delay");
    }

    private static DedupJobConfig config(String... extra) {
        List<String> args = new ArrayList<>(BASE);
        args.addAll(List.of(extra));
        return DedupJobConfig.parse(args.toArray(new String[0]));
    }

    /** The job's topology in an environment configured as {@code runJob} configures it (state backend, checkpoints). */
    private static StreamGraph streamGraph(DedupJobConfig config) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(DedupJob.flinkConfiguration(config));
        env.setParallelism(2);
        ImpressionSource source = e -> e.fromSequence(0, 1).map((MapFunction<Long, ParsedRecord>) i -> null, ParsedRecord.TYPE_INFO)
                .uid(KafkaConnectors.SOURCE_UID);
        DedupJob.defineWorkflow(env, config, source, new DedupSinks() {
            @Override
            public void attach(DataStream<Impression> unique, DataStream<DeadLetter> deadLetters, DataStream<Impression> duplicates) {
                unique.sinkTo(new DiscardingSink<>()).uid("test-output");
                deadLetters.sinkTo(new DiscardingSink<>()).uid("test-dead-letters");
            }

            @Override
            public void attachStats(DataStream<StatsRow> rows) {
                rows.sinkTo(new DiscardingSink<>()).uid("test-stats");
            }
        });
        return env.getStreamGraph();
    }

    private static Set<String> uids(StreamGraph graph) {
        return graph.getStreamNodes().stream().map(StreamNode::getTransformationUID).filter(u -> u != null)
                .map(u -> u.replaceAll(": (Writer|Committer)$", "")).collect(Collectors.toCollection(TreeSet::new));
    }

    private static JobVertex vertexHolding(JobGraph graph, String operatorName) {
        for (JobVertex vertex : graph.getVertices()) {
            if (vertex.getName().contains(operatorName)) {
                return vertex;
            }
        }
        throw new AssertionError("no vertex runs " + operatorName + " in " + List.of(graph.getVerticesAsArray()));
    }
}
