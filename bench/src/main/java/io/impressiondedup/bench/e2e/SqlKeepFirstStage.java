package io.impressiondedup.bench.e2e;

import io.impressiondedup.job.DedupStage;
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
 * Flink SQL's deduplication: {@code ROW_NUMBER() OVER (PARTITION BY requestId, adId ORDER BY
 * proctime) = 1}, with {@code table.exec.state.ttl} = retention. Keeping the first row on processing
 * time is the insert-only form the planner runs as a keyed "seen" flag per key. The record itself
 * travels through the query as one BYTES column.
 *
 * <p>In a class of its own because it is the one stage that needs the Table API and the planner: on a
 * session cluster they come from the cluster's class path (the Flink distribution's lib/ holds
 * flink-table-api-java-uber, flink-table-planner-loader and flink-table-runtime; deploy/cluster/pom.xml's
 * profile {@code table}), not from the job's jar.
 */
final class SqlKeepFirstStage {

    private SqlKeepFirstStage() {}

    static DedupStage of(Duration retention) {
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
