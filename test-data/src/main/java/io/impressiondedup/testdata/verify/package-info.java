/**
 * Verifying a job's output and dead-letter topics, and its reconciliation rows, against the ground truth.
 */
package io.impressiondedup.testdata.verify;
