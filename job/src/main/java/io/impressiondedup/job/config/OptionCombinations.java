package io.impressiondedup.job.config;

import static io.impressiondedup.job.config.DedupJobOptions.*;

import org.apache.flink.connector.base.DeliveryGuarantee;
import org.slf4j.LoggerFactory;

/**
 * The rules between options, each value being valid on its own ({@link DedupJobOptions}' rules): a transaction that
 * would time out between two checkpoints, topics that collide (the job would read its own output, or mix its
 * outputs), and, as a warning only, a shard count that leaves parallelism idle. Each failure names the options.
 */
final class OptionCombinations {

    private OptionCombinations() {}

    /** Fails naming the options of the first combination {@code config} breaks; warns of idle parallelism. */
    static void check(DedupJobConfig config) {
        if (config.delivery() == DeliveryGuarantee.EXACTLY_ONCE
                && config.transactionTimeout().compareTo(config.checkpointInterval().multipliedBy(2)) < 0) {
            throw new InvalidOptionException("--" + TRANSACTION_TIMEOUT.key() + " " + config.transactionTimeout().toSeconds()
                    + "s must be at least twice --" + CHECKPOINT_INTERVAL.key() + " (" + config.checkpointInterval().toSeconds()
                    + "s): a transaction stays open from one checkpoint to the next, and Kafka aborts it at the timeout,"
                    + " losing its records.");
        }
        String inputTopic = config.inputTopic();
        String outputTopic = config.outputTopic();
        String dlqTopic = config.dlqTopic();
        if (outputTopic.equals(inputTopic) || dlqTopic.equals(inputTopic)) {
            throw new InvalidOptionException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key()
                    + " must differ from --" + INPUT_TOPIC.key() + " (" + inputTopic + "): the job would read its own output");
        }
        if (outputTopic.equals(dlqTopic)) {
            throw new InvalidOptionException("--" + OUTPUT_TOPIC.key() + " and --" + DLQ_TOPIC.key() + " must differ");
        }
        String statsTopic = config.statsTopic().orElse(null);
        String duplicatesTopic = config.duplicatesTopic().orElse(null);
        if (statsTopic != null && (statsTopic.equals(inputTopic) || statsTopic.equals(outputTopic) || statsTopic.equals(dlqTopic)
                || statsTopic.equals(duplicatesTopic))) {
            throw new InvalidOptionException("--" + STATS_TOPIC.key() + " " + statsTopic + " must differ from --" + INPUT_TOPIC.key()
                    + ", --" + OUTPUT_TOPIC.key() + ", --" + DLQ_TOPIC.key() + " and --" + DUPLICATES_TOPIC.key()
                    + ": its rows are JSON counts, not impressions");
        }
        int shards = config.dedupSettings().plan().shards();
        if (shards < config.maxParallelism()) {
            LoggerFactory.getLogger(DedupJobConfig.class).warn(
                    "--shards {} is below --max-parallelism {}: only {} key groups hold state, so parallelism above {} idles",
                    shards, config.maxParallelism(), shards, shards);
        }
    }
}
