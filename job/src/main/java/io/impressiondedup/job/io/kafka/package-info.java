/**
 * The job's Kafka source and sinks: {@code KafkaConnectors} builds them from the configuration, {@code
 * ImpressionDeserializationSchema} turns each consumed record into a parsed record (the parsing package's parsers) or a
 * dead letter, {@code
 * KafkaRecords} serializes what the sinks write (output, dead letters with {@code DeadLetterHeaders}, stats
 * rows with {@code StatsRows}), and {@code ResumableBoundedKafkaSource} is the bounded source that also
 * finishes after a restore.
 */
package io.impressiondedup.job.io.kafka;
