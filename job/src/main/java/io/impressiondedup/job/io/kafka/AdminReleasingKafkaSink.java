package io.impressiondedup.job.io.kafka;

import java.io.IOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.lineage.LineageVertex;
import org.apache.flink.streaming.api.lineage.LineageVertexProvider;
import org.apache.kafka.clients.admin.Admin;

/**
 * A {@link KafkaSink} whose exactly-once writers release the Kafka admin client they open: everything else is the
 * connector's sink, delegated to as it is (writer, committer, state serializers, post-commit topology, lineage), so the
 * sink's state and behaviour are the connector's, under the same uid.
 *
 * <p><b>Why.</b> flink-connector-kafka 5.0.0's exactly-once writer, with {@code TransactionNamingStrategy.POOLING},
 * lists the lingering transactions of a previous run through an admin client it creates lazily and never closes. That
 * client keeps a thread ({@code kafka-admin-client-thread | adminclient-N}), a broker connection and its app-info and
 * metrics MBeans in the platform MBean server; since the Kafka client classes come from the job's jar, they keep the
 * job's class loader, with every class of the job, reachable after the job ends: about 15 MB of metaspace per job on
 * every TaskManager of a session cluster, until {@code OutOfMemoryError: Metaspace} at the 21st job with Flink's default
 * 256 MB (deploy/README.md, "Session clusters"), and one more thread and connection per sink subtask at each failover.
 *
 * <p><b>How.</b> The connector's writer does all its admin work in {@code initialize()}, which {@link KafkaSink} calls
 * before it returns the writer: right after, {@link #releaseAdminClient} closes the client the writer holds (its private
 * field {@value #ADMIN_CLIENT_FIELD}, read by reflection, then cleared), and again when the writer closes, in case the
 * writer opened another since (it does so lazily, only for topic patterns, which this job does not use). A connector
 * that renames the field fails the job's first writer with a message naming it ({@code AdminReleasingKafkaSinkTest} pins
 * the field of the connector version the build uses); a connector whose writer holds no client at all needs no such class.
 * POOLING is kept because it reuses a small pool of transactional ids where the other strategy opens one per checkpoint
 * and subtask, which the brokers keep for {@code transactional.id.expiration.ms}.
 */
public final class AdminReleasingKafkaSink<IN>
        implements TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable>, SupportsPostCommitTopology<KafkaCommittable>,
        LineageVertexProvider {

    private static final long serialVersionUID = 1L;

    /** The connector's exactly-once writer's field holding its lazily created admin client. */
    static final String ADMIN_CLIENT_FIELD = "adminClient";
    /** How long a close waits for the admin client's pending requests: none are left once the writer is initialized. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final KafkaSink<IN> sink;

    public AdminReleasingKafkaSink(KafkaSink<IN> sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> createWriter(WriterInitContext context) throws IOException {
        return new Writer<>(sink.createWriter(context));
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> restoreWriter(WriterInitContext context,
            Collection<KafkaWriterState> recoveredState) throws IOException {
        return new Writer<>(sink.restoreWriter(context, recoveredState));
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return sink.getWriterStateSerializer();
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) throws IOException {
        return sink.createCommitter(context);
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return sink.getCommittableSerializer();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
        sink.addPostCommitTopology(committables);
    }

    @Override
    public LineageVertex getLineageVertex() {
        return sink.getLineageVertex();
    }

    /**
     * Closes and clears the admin client {@code writer} holds, if it holds one ({@link #ADMIN_CLIENT_FIELD}); a writer of
     * another class (at-least-once, none) has none. Returns whether it closed one.
     */
    static boolean releaseAdminClient(Object writer) {
        Field field = adminClientField(writer.getClass());
        if (field == null) {
            return false;
        }
        try {
            Admin admin = (Admin) field.get(writer);
            if (admin == null) {
                return false;
            }
            field.set(writer, null);
            admin.close(CLOSE_TIMEOUT);
            return true;
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Cannot release the Kafka admin client of " + writer.getClass().getName() + "." + ADMIN_CLIENT_FIELD, e);
        }
    }

    /**
     * The accessible admin-client field of the connector's exactly-once writer class, {@code null} for another writer; a
     * writer class named {@code ExactlyOnceKafkaWriter} without it is a connector this sink does not know, refused with a
     * message naming the field.
     */
    static Field adminClientField(Class<?> writerClass) {
        if (!writerClass.getSimpleName().equals("ExactlyOnceKafkaWriter")) {
            return null;
        }
        try {
            Field field = writerClass.getDeclaredField(ADMIN_CLIENT_FIELD);
            if (!Admin.class.isAssignableFrom(field.getType())) {
                throw new IllegalStateException(writerClass.getName() + "." + ADMIN_CLIENT_FIELD + " is a " + field.getType().getName()
                        + ", not a Kafka admin client: a flink-connector-kafka this job was not built for");
            }
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(writerClass.getName() + " has no field " + ADMIN_CLIENT_FIELD + ": a flink-connector-kafka this"
                    + " job was not built for (AdminReleasingKafkaSink releases the admin client that field holds)", e);
        }
    }

    /** The connector's writer, releasing its admin client once initialized and again at close; every call delegated. */
    private static final class Writer<IN> implements PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> {

        private final PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> writer;

        Writer(PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> writer) {
            this.writer = writer;
            releaseAdminClient(writer); // initialize() has aborted the lingering transactions: the client's work is done
        }

        @Override
        public void write(IN element, SinkWriter.Context context) throws IOException, InterruptedException {
            writer.write(element, context);
        }

        @Override
        public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
            writer.writeWatermark(watermark);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            writer.flush(endOfInput);
        }

        @Override
        public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
            return writer.prepareCommit();
        }

        @Override
        public java.util.List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
            return writer.snapshotState(checkpointId);
        }

        @Override
        public void close() throws Exception {
            try {
                releaseAdminClient(writer);
            } finally {
                writer.close();
            }
        }
    }
}
