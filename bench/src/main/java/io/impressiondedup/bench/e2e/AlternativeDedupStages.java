package io.impressiondedup.bench.e2e;

import io.impressiondedup.bench.operator.ExactDedupFunction;
import io.impressiondedup.job.DedupStage;
import io.impressiondedup.operators.dedup.ShardKeySelector;
import io.impressiondedup.operators.model.Impression;
import io.impressiondedup.operators.model.ImpressionSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;

/**
 * What users would run in place of our dedup operator, as {@link DedupStage}s that slot into the
 * job's own topology: the Kafka source, the parsing and routing and the exactly-once sinks stay the
 * same, so that only the dedup step differs between the variants measured.
 */
final class AlternativeDedupStages {

    private AlternativeDedupStages() {}

    /** No dedup: every impression passes. The ceiling of the pipeline around the dedup step. */
    static DedupStage passThrough() {
        return (impressions, config) -> new DedupStage.Deduplicated(impressions, null, null);
    }

    /**
     * No dedup, but the records cross the same keyBy by shard as this job's: the ceiling for a
     * pipeline of the job's shape (a source-and-parse task feeding a dedup-and-sink task), where
     * the plain pass-through is one chain per subtask.
     */
    static DedupStage keyedPassThrough() {
        return ParsePassThrough.stage();
    }

    /**
     * The DataStream idiom: key by (request id, ad id), a {@code ValueState<Boolean>} per key with a
     * TTL of the retention ({@link ExactDedupFunction}).
     */
    static DedupStage exactKeyedState(Duration retention) {
        return ExactKeyedStage.of(retention);
    }

    /**
     * Flink SQL's deduplication: {@code ROW_NUMBER() OVER (PARTITION BY requestId, adId ORDER BY
     * proctime) = 1}, with {@code table.exec.state.ttl} = retention. Keeping the first row on
     * processing time is the insert-only form the planner runs as a keyed "seen" flag per key. The
     * record itself travels through the query as one BYTES column.
     */
    static DedupStage flinkSql(Duration retention) {
        return (impressions, config) -> {
            StreamExecutionEnvironment env = impressions.getExecutionEnvironment();
            StreamTableEnvironment tables = StreamTableEnvironment.create(env);
            tables.getConfig().set("table.exec.state.ttl", retention.toMillis() + " ms");
            TypeInformation<Row> rowType = Types.ROW_NAMED(new String[] {"requestId", "adId", "record"},
                    Types.STRING, Types.STRING, Types.PRIMITIVE_ARRAY(Types.BYTE));
            DataStream<Row> rows = impressions
                    .map(i -> Row.of(i.requestId(), i.adId(), toBytes(i)), rowType)
                    .name("Impression to row");
            Table table = tables.fromDataStream(rows, Schema.newBuilder().columnByExpression("proctime", "PROCTIME()").build());
            tables.createTemporaryView("impressions", table);
            Table unique = tables.sqlQuery("SELECT record FROM ("
                    + " SELECT record, ROW_NUMBER() OVER (PARTITION BY requestId, adId ORDER BY proctime ASC) AS rn"
                    + " FROM impressions) WHERE rn = 1");
            DataStream<Impression> out = tables.toDataStream(unique)
                    .map(row -> fromBytes((byte[]) row.getField(0)), Impression.TYPE_INFO)
                    .name("Row to impression");
            return new DedupStage.Deduplicated(out, null, null);
        };
    }

    static byte[] toBytes(Impression impression) {
        DataOutputSerializer out = new DataOutputSerializer(256);
        try {
            // A serializer per call: they are not thread-safe, and the map functions run in parallel.
            ImpressionSerializer.INSTANCE.duplicate().serialize(impression, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.getCopyOfBuffer();
    }

    static Impression fromBytes(byte[] bytes) {
        try {
            return ImpressionSerializer.INSTANCE.duplicate().deserialize(new DataInputDeserializer(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
