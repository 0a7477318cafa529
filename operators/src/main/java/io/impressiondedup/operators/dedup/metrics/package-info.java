/**
 * The dedup operator's metrics: counters of each outcome, kept equal to the job accumulators of the same name ({@code
 * Tally}), the state gauges (live buckets, bytes, fill, estimated FPP), the page cache's counters, and the dead-letter
 * count by reason.
 */
package io.impressiondedup.operators.dedup.metrics;
