/**
 * Event time at the source: which event times are valid ({@code EventTimeRules}) and the per-partition
 * watermarks ({@code ImpressionWatermarks}). The time rules of deduplication itself are in {@code
 * io.impressiondedup.state.time.TimeBuckets}.
 */
package io.impressiondedup.job.io.eventtime;
