package io.impressiondedup.operators.dedup.restore;

/**
 * What this run asks of restored state, from the job's options: the values a restore is checked against and the
 * overrides an operator may give ({@link RestoreContract#restore}).
 *
 * @param fingerprintCheck the check value of the job's fingerprint secret, {@code 0} without one
 * @param dedupKey the identity rule's description ({@code --dedup-key})
 * @param allowDedupKeyChange {@code --allow-dedup-key-change}
 * @param allowRetentionIncrease {@code --allow-retention-increase}
 * @param resetLatenessWatermark {@code --reset-lateness-watermark}
 */
public record RestoreRules(long fingerprintCheck, String dedupKey, boolean allowDedupKeyChange, boolean allowRetentionIncrease,
        boolean resetLatenessWatermark) {}
