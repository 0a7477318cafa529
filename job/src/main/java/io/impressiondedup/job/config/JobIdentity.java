package io.impressiondedup.job.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The job's identity on a Kafka cluster when none is given: the default of both {@code --group-id}
 * and {@code --transactional-id-prefix}, {@code impression-dedup-<input>-<output>-<hash>}.
 *
 * <p>Why these parts. Two jobs on one cluster must not share a transactional-id prefix (the second
 * aborts and fences the first one's transactions, losing their records) nor a consumer group (the
 * second starts from the first one's committed offsets). What tells two jobs apart is the data they
 * move: the input and the output topic. Two jobs moving the same input to the same output are one
 * job run twice, and keeping one identity for them is what lets the start-up check ({@code
 * OpenTransactionsUnderPrefix.lookUp}) see the other one. The dead-letter and duplicates topics
 * are left out on purpose: they are what an upgrade is likely to change (adding the audit topic),
 * and an identity that changes across a restore leaves the previous run's open transaction under
 * the old prefix, which nobody aborts: read_committed consumers of the output stall behind it until
 * the brokers time it out. The bootstrap servers are left out because ids are per cluster anyway.
 * The job name is left out because the job names itself after the same two topics ({@code
 * DedupJob.jobName}); Flink's {@code pipeline.name} is not used.
 *
 * <p>Why this shape. Readable (an operator finds the job of a group or a transaction by its topics),
 * bounded (each topic name shortened to {@value #MAX_TOPIC_CHARS} characters: at most 107 characters
 * in all), and unambiguous: topic names may contain {@code -}, and shortened ones may collide, so the
 * last part is the first 8 hex digits of SHA-256 over the full names, which tells {@code a-b} + {@code
 * c} from {@code a} + {@code b-c}. A pure function of the two names: the same on every restart and
 * every machine, never random, never time-based.
 */
public final class JobIdentity {

    /** What every derived identity starts with. */
    public static final String PREFIX = "impression-dedup";
    /** Each topic name is shortened to this many characters in the readable part. */
    static final int MAX_TOPIC_CHARS = 40;
    private static final int HASH_HEX_DIGITS = 8;

    private JobIdentity() {}

    /** The default group id and transactional-id prefix of a job reading {@code inputTopic} and writing {@code outputTopic}. */
    public static String derive(String inputTopic, String outputTopic) {
        // Topic names never contain a newline (Kafka allows [a-zA-Z0-9._-]): the separator is unambiguous.
        String hash = HexFormat.of().formatHex(sha256(inputTopic + "\n" + outputTopic)).substring(0, HASH_HEX_DIGITS);
        return PREFIX + "-" + shorten(inputTopic) + "-" + shorten(outputTopic) + "-" + hash;
    }

    /** How the default is formed, for option descriptions and {@code --help}. */
    public static String describeDerivation() {
        return PREFIX + "-<input-topic>-<output-topic>-<first 8 hex digits of SHA-256 of both names>, each topic name cut to "
                + MAX_TOPIC_CHARS + " characters; e.g. " + derive("impressions", "impressions-deduplicated");
    }

    private static String shorten(String topic) {
        return topic.length() <= MAX_TOPIC_CHARS ? topic : topic.substring(0, MAX_TOPIC_CHARS);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
