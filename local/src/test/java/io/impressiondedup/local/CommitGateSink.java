package io.impressiondedup.local;

import io.impressiondedup.job.io.kafka.AdminReleasingKafkaSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.kafka.sink.KafkaCommittable;
import org.apache.flink.connector.kafka.sink.KafkaWriterState;
import org.apache.flink.connector.kafka.sink.TwoPhaseCommittingStatefulSink;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.connector.sink2.CommittableMessage;
import org.apache.flink.streaming.api.connector.sink2.SupportsPostCommitTopology;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The job's own Kafka sink ({@link AdminReleasingKafkaSink}), unchanged, with one hook: once armed (after {@link #ARM_AFTER}
 * records were written), the first commit of a completed checkpoint's transactions fails the job
 * instead of committing, so that the job restarts from that checkpoint with its transaction still
 * open on the brokers: the one deterministic way to put a job exactly where an outage costs
 * output. Counts the records each transaction holds (the writes between two {@code prepareCommit}s
 * of the writer), so a test knows exactly what the refused transaction held.
 *
 * <p>State is static: the job runs on a MiniCluster in the test's JVM, one test at a time ({@link #reset()}).
 */
final class CommitGateSink<IN> implements TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable>,
        SupportsPostCommitTopology<KafkaCommittable> {

    private static final long serialVersionUID = 1L;

    static final long ARM_AFTER = 20;
    static final AtomicLong WRITTEN = new AtomicLong();
    static final AtomicBoolean FIRED = new AtomicBoolean();
    /** Records per transaction, by {@link #key}: the count at the transaction's latest prepareCommit. */
    static final Map<String, Long> RECORDS_BY_TRANSACTION = new ConcurrentHashMap<>();
    /** What the refused commit held. */
    static final AtomicLong REFUSED_RECORDS = new AtomicLong(-1);
    static final List<String> REFUSED_TRANSACTIONS = new java.util.concurrent.CopyOnWriteArrayList<>();

    private final AdminReleasingKafkaSink<IN> kafka;

    CommitGateSink(AdminReleasingKafkaSink<IN> kafka) {
        this.kafka = kafka;
    }

    static void reset() {
        WRITTEN.set(0);
        FIRED.set(false);
        RECORDS_BY_TRANSACTION.clear();
        REFUSED_RECORDS.set(-1);
        REFUSED_TRANSACTIONS.clear();
    }

    /** A transaction's identity: pooled transactional ids are reused, their producer id and epoch tell the uses apart while one is pending. */
    static String key(KafkaCommittable committable) {
        return committable.getTransactionalId() + "/" + committable.getProducerId() + "/" + committable.getEpoch();
    }

    private TwoPhaseCommittingStatefulSink<IN, KafkaWriterState, KafkaCommittable> delegate() {
        return kafka;
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> createWriter(WriterInitContext context)
            throws IOException {
        return new CountingWriter<>(delegate().createWriter(context));
    }

    @Override
    public PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> restoreWriter(WriterInitContext context,
            Collection<KafkaWriterState> recoveredState) throws IOException {
        return new CountingWriter<>(delegate().restoreWriter(context, recoveredState));
    }

    @Override
    public SimpleVersionedSerializer<KafkaWriterState> getWriterStateSerializer() {
        return kafka.getWriterStateSerializer();
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(CommitterInitContext context) throws IOException {
        Committer<KafkaCommittable> committer = kafka.createCommitter(context);
        return new Committer<>() {
            @Override
            public void commit(Collection<CommitRequest<KafkaCommittable>> requests) throws IOException, InterruptedException {
                if (!requests.isEmpty() && WRITTEN.get() >= ARM_AFTER && FIRED.compareAndSet(false, true)) {
                    long held = 0;
                    for (CommitRequest<KafkaCommittable> request : requests) {
                        held += RECORDS_BY_TRANSACTION.getOrDefault(key(request.getCommittable()), 0L);
                        REFUSED_TRANSACTIONS.add(key(request.getCommittable()));
                    }
                    REFUSED_RECORDS.set(held);
                    throw new IOException("Injected failure: the checkpoint completed, its transactions " + REFUSED_TRANSACTIONS
                            + " (" + held + " records) are not committed");
                }
                committer.commit(requests);
            }

            @Override
            public void close() throws Exception {
                committer.close();
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<KafkaCommittable> getCommittableSerializer() {
        return kafka.getCommittableSerializer();
    }

    @Override
    public void addPostCommitTopology(DataStream<CommittableMessage<KafkaCommittable>> committables) {
        kafka.addPostCommitTopology(committables); // keeps the writer and the committer together, as the Kafka sink needs
    }

    /** The Kafka writer, counting the records of each transaction. */
    private static final class CountingWriter<IN> implements PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> {
        private final PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> writer;
        private long sincePrepare;

        CountingWriter(PrecommittingStatefulSinkWriter<IN, KafkaWriterState, KafkaCommittable> writer) {
            this.writer = writer;
        }

        @Override
        public void write(IN element, Context context) throws IOException, InterruptedException {
            writer.write(element, context);
            sincePrepare++;
            WRITTEN.incrementAndGet();
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            writer.flush(endOfInput);
        }

        @Override
        public void writeWatermark(Watermark watermark) throws IOException, InterruptedException {
            writer.writeWatermark(watermark);
        }

        @Override
        public Collection<KafkaCommittable> prepareCommit() throws IOException, InterruptedException {
            Collection<KafkaCommittable> committables = new ArrayList<>(writer.prepareCommit());
            for (KafkaCommittable committable : committables) {
                RECORDS_BY_TRANSACTION.put(key(committable), sincePrepare);
            }
            sincePrepare = 0;
            return committables;
        }

        @Override
        public List<KafkaWriterState> snapshotState(long checkpointId) throws IOException {
            return writer.snapshotState(checkpointId);
        }

        @Override
        public void close() throws Exception {
            writer.close();
        }
    }
}
