package io.impressiondedup.job.io.checks;

import io.impressiondedup.job.config.DedupJobConfig;
import io.impressiondedup.job.config.DedupJobOptions;
import io.impressiondedup.job.io.kafka.KafkaConnectors;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;

/**
 * What the start-up check found of open Kafka transactions under the job's transactional ids
 * ({@link #lookUp}), and the one line the job logs about it: a
 * warning if a job starting without state found some (another job with the same prefix, or an
 * earlier run that left them open: the new job's sinks abort or fence them, and their records are
 * lost), information otherwise. Never a failure: the job starts either way.
 */
public final class OpenTransactionsUnderPrefix {

    /** What the check did. */
    public enum Outcome {
        /** Started without state, and open transactions were found: warn. */
        FOUND,
        /** Started without state, and none was found. */
        NONE_FOUND,
        /** Restoring from a savepoint or checkpoint: the restored sinks commit or abort their own transactions; not checked. */
        SKIPPED_RESTORING,
        /** The check could not run (no transactions at least once, no permission, brokers unreachable). */
        NOT_RUN
    }

    private static final int IDS_SHOWN = 5;

    private final Outcome outcome;
    private final String prefix;
    private final List<String> transactionalIds;
    private final String detail;

    private OpenTransactionsUnderPrefix(Outcome outcome, String prefix, List<String> transactionalIds, String detail) {
        this.outcome = outcome;
        this.prefix = prefix;
        this.transactionalIds = List.copyOf(transactionalIds);
        this.detail = detail;
    }

    /**
     * Open transactions under the job's transactional ids, looked for when the job starts without
     * state (no {@code execution.state-recovery.path} in Flink's configuration: neither {@code flink
     * run -s} nor the REST run request's {@code savepointPath} was given). Another job with the same
     * prefix, or an earlier run, left them open; this job's sinks will abort or fence them. Never
     * fails: the result says what was found, or why the check could not run, and the job logs it
     * ({@link #logTo}).
     */
    public static OpenTransactionsUnderPrefix lookUp(DedupJobConfig config, ReadableConfig flinkConfiguration) {
        return notToLookUp(config, flinkConfiguration).orElseGet(() -> {
            try (Admin admin = CheckAdmin.open(config)) {
                return lookUp(admin, config);
            } catch (RuntimeException e) {
                return notRun(config.transactionalIdPrefix(), e.getMessage());
            }
        });
    }

    /** {@link #lookUp(DedupJobConfig, ReadableConfig)} with the submission checks' admin client. */
    static OpenTransactionsUnderPrefix lookUp(Admin admin, DedupJobConfig config, ReadableConfig flinkConfiguration) {
        return notToLookUp(config, flinkConfiguration).orElseGet(() -> lookUp(admin, config));
    }

    /** Why there is nothing to look for, if there is not: no transactions, or a job that restores its own. */
    private static Optional<OpenTransactionsUnderPrefix> notToLookUp(DedupJobConfig config, ReadableConfig flinkConfiguration) {
        String prefix = config.transactionalIdPrefix();
        if (config.delivery() != DeliveryGuarantee.EXACTLY_ONCE) {
            return Optional.of(notRun(prefix, "--" + DedupJobOptions.DELIVERY.key() + " " + config.delivery() + " uses no transactions"));
        }
        return flinkConfiguration.getOptional(StateRecoveryOptions.SAVEPOINT_PATH).map(path -> skippedRestoring(prefix, path));
    }

    /** The open transactions whose ids are those of the job's sinks ({@code <prefix>-output-...}, {@code -dlq-}, {@code -duplicates-}, {@code -stats-}). */
    static OpenTransactionsUnderPrefix lookUp(Admin admin, DedupJobConfig config) {
        String prefix = config.transactionalIdPrefix();
        List<String> sinkPrefixes = List.of(prefix + KafkaConnectors.OUTPUT_ID_SUFFIX + "-", prefix + KafkaConnectors.DEAD_LETTER_ID_SUFFIX
                + "-", prefix + KafkaConnectors.DUPLICATES_ID_SUFFIX + "-", prefix + KafkaConnectors.STATS_ID_SUFFIX + "-");
        // The brokers list only the transactions the principal may describe, silently: make sure it may describe ours.
        String probe = sinkPrefixes.get(0) + "0-0";
        try {
            admin.describeTransactions(List.of(probe)).all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                return notRun(prefix, "the job's principal may not Describe TransactionalId prefix '" + prefix + "': it lacks "
                        + KafkaAcls.describeOptional(KafkaAcls.required(config), ResourceType.TRANSACTIONAL_ID, prefix));
            }
            if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
                return notRun(prefix, "describing " + probe + ": " + e.getCause());
            }
        } catch (Exception e) {
            return notRun(prefix, e.toString());
        }
        Collection<TransactionListing> open;
        try {
            open = admin.listTransactions(new ListTransactionsOptions()
                            .filterStates(List.of(TransactionState.ONGOING, TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)))
                    .all().get(CheckAdmin.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return notRun(prefix, "listing transactions: " + e.getCause());
        } catch (Exception e) {
            return notRun(prefix, "listing transactions: " + e);
        }
        List<String> ours = new ArrayList<>();
        for (TransactionListing transaction : open) {
            if (sinkPrefixes.stream().anyMatch(transaction.transactionalId()::startsWith)) {
                ours.add(transaction.transactionalId());
            }
        }
        Collections.sort(ours);
        return found(prefix, ours);
    }

    static OpenTransactionsUnderPrefix found(String prefix, List<String> transactionalIds) {
        return new OpenTransactionsUnderPrefix(transactionalIds.isEmpty() ? Outcome.NONE_FOUND : Outcome.FOUND, prefix, transactionalIds, null);
    }

    static OpenTransactionsUnderPrefix skippedRestoring(String prefix, String restorePath) {
        return new OpenTransactionsUnderPrefix(Outcome.SKIPPED_RESTORING, prefix, List.of(), restorePath);
    }

    static OpenTransactionsUnderPrefix notRun(String prefix, String reason) {
        return new OpenTransactionsUnderPrefix(Outcome.NOT_RUN, prefix, List.of(), reason);
    }

    public Outcome outcome() {
        return outcome;
    }

    /** The open transactions' ids (empty unless {@link Outcome#FOUND}). */
    public List<String> transactionalIds() {
        return transactionalIds;
    }

    /** The line logged at start. */
    public String message() {
        String option = "--" + DedupJobOptions.TRANSACTIONAL_ID_PREFIX.key() + " " + prefix;
        switch (outcome) {
            case FOUND:
                List<String> shown = transactionalIds.subList(0, Math.min(IDS_SHOWN, transactionalIds.size()));
                return "Found " + transactionalIds.size() + " open Kafka transaction(s) under " + option + " " + shown
                        + (transactionalIds.size() > IDS_SHOWN ? " and more" : "") + " while this job starts without state (no"
                        + " savepoint or checkpoint to restore). Another job runs with the same prefix, or an earlier run of this"
                        + " job left them open: this job's sinks will abort or fence them, and their records are lost (a running"
                        + " job then fails and, restarting, fences this one in turn). Give this job a distinct --"
                        + DedupJobOptions.TRANSACTIONAL_ID_PREFIX.key() + " (and --" + DedupJobOptions.GROUP_ID.key() + "), or start it"
                        + " from that job's savepoint or last checkpoint (flink run -s <path>). If this is the same job recovering"
                        + " its checkpoints on its own (application mode after a JobManager failover), ignore this.";
            case NONE_FOUND:
                return "No open Kafka transactions under " + option + ": no other job writes with this prefix.";
            case SKIPPED_RESTORING:
                return "Restoring from " + detail + ": not looking for open Kafka transactions under " + option
                        + " (the restored sinks commit or abort their own).";
            case NOT_RUN:
            default:
                return "Could not check for open Kafka transactions under " + option + " (" + detail + "); starting anyway.";
        }
    }

    /** Logs {@link #message()}: a warning if open transactions were found, information otherwise. */
    public void logTo(Logger log) {
        if (outcome == Outcome.FOUND) {
            log.warn(message());
        } else {
            log.info(message());
        }
    }

    @Override
    public String toString() {
        return outcome + ": " + message();
    }
}
