/**
 * Writing a generated stream and its ground truth: to a file ({@code JsonlFileDestination}) or a topic ({@code
 * KafkaTopicDestination}), at an optional rate ({@code Generation}).
 */
package io.impressiondedup.testdata.write;
