/**
 * {@code dedup-tools replay}: dead letters re-injected as their original records, selected by reason, in one
 * transaction.
 */
package io.impressiondedup.tools.replay;
