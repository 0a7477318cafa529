package io.impressiondedup.job.io.checks;

/**
 * What the submission checks learned from the brokers ({@link KafkaChecks#atSubmission}), beside failing
 * when they must: the dead-letter topic's record limit, which the dead-letter sink is built with, and the
 * open transactions under the job's prefix, which the job logs.
 *
 * @param deadLetterTopicMaxMessageBytes the dead-letter topic's {@code max.message.bytes} ({@link TopicMaxMessageBytes})
 * @param openTransactions what the look for open transactions found
 */
public record BrokerFindings(int deadLetterTopicMaxMessageBytes, OpenTransactionsUnderPrefix openTransactions) {}
