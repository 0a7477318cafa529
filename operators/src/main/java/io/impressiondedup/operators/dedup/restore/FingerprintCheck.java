package io.impressiondedup.operators.dedup.restore;

import io.impressiondedup.state.identity.FingerprintSecret;

/**
 * Whether restored dedup state was written with the fingerprint secret this job runs with. The secret
 * decides which shard every request maps to and which Bloom bits it sets, so state written with
 * another secret, or with one when this job has none (or the other way round), would answer every
 * lookup from the wrong bits: duplicates would pass. State v1 holds no check value and counts as
 * written without a secret (versions: docs/COMPATIBILITY.md).
 */
final class FingerprintCheck {

    private FingerprintCheck() {}

    /**
     * Fails naming {@code --fingerprint-secret-file} unless every restored check value is {@code configured}'s
     * ({@link FingerprintSecret#NO_SECRET} for none; no value restored means none): equal to it, or check value v1 of
     * the same secret, which state v2 and v3 hold ({@link FingerprintSecret#checkValueV2Of} gives its v2: derived
     * once per distinct value, a fraction of a second). The caller then records {@code configured}, so such state holds
     * check value v2 from its next checkpoint on.
     */
    static void verify(Iterable<Long> restored, long configured) {
        long written = FingerprintSecret.NO_SECRET;
        boolean allMatch = true;
        long v1OfConfigured = FingerprintSecret.NO_SECRET;
        for (Long value : restored) {
            written = value;
            if (value == configured || (v1OfConfigured != FingerprintSecret.NO_SECRET && value == v1OfConfigured)) {
                continue;
            }
            if (configured != FingerprintSecret.NO_SECRET && value != FingerprintSecret.NO_SECRET
                    && FingerprintSecret.checkValueV2Of(value) == configured) {
                v1OfConfigured = value;
                continue;
            }
            allMatch = false;
            break;
        }
        if (allMatch && (written != FingerprintSecret.NO_SECRET || configured == FingerprintSecret.NO_SECRET)) {
            return;
        }
        String consequence = " Every request would be looked up in another shard and other Bloom bits than it was stored in, and"
                + " duplicates would pass. A fingerprint secret applies to fresh state only.";
        if (written == FingerprintSecret.NO_SECRET) {
            throw new IllegalStateException("The dedup state was written without a fingerprint secret, but this job runs with"
                    + " --fingerprint-secret-file (check value " + FingerprintSecret.describeCheckValue(configured) + ")."
                    + consequence + " Run without --fingerprint-secret-file, or start without state.");
        }
        if (configured == FingerprintSecret.NO_SECRET) {
            throw new IllegalStateException("The dedup state was written with a fingerprint secret (check value "
                    + FingerprintSecret.describeCheckValue(written) + "), but this job runs without --fingerprint-secret-file."
                    + consequence + " Run with the --fingerprint-secret-file the state was written with, or start without state.");
        }
        throw new IllegalStateException("The dedup state was written with another fingerprint secret (check value "
                + FingerprintSecret.describeCheckValue(written) + ") than this job's --fingerprint-secret-file (check value "
                + FingerprintSecret.describeCheckValue(configured) + ")." + consequence
                + " Run with the --fingerprint-secret-file the state was written with, or start without state.");
    }
}
