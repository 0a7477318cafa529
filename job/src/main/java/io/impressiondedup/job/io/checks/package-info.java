/**
 * Checks made against the brokers before the job runs, so that what Kafka would reject once running fails
 * at submission naming the option: topics, ACLs ({@code KafkaAcls}, {@code AclProbes}), the transaction
 * timeout, the dead-letter topic's record limit, and open transactions under the job's prefix.
 */
package io.impressiondedup.job.io.checks;
