/**
 * Reading the input: one Kafka record into an {@code Impression} or a {@code DeadLetter} saying why not, never
 * an exception for bad input. {@code RecordParser} is the contract; {@code JsonImpressionParser} (JSON, with the
 * {@code FlatImpressionScanner} fast path) and {@code AvroImpressionParser} (over {@code io.avro}'s reader, which the
 * options' check at start uses too) implement it; {@code
 * ImpressionAssembler} is their format-independent tail; {@code DedupKey} is the identity rule.
 */
package io.impressiondedup.job.io.parsing;
