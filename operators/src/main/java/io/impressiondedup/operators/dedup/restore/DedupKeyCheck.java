package io.impressiondedup.operators.dedup.restore;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether restored dedup state was written under the identity rule this job runs with ({@link
 * DedupSettings#dedupKey()}: the key fields as JSON Pointers joined by {@code ;}).
 *
 * <p><b>Why it is checked.</b> The state holds no impressions, only Bloom bits set by each identity's
 * hash: the first key field's digest chooses the shard and, with the rest of the key, the bits. Under
 * another key the same impression has another identity, so every copy of an impression stored before the
 * change finds none of its bits and passes as new, once, for as long as the retention: silent double
 * counting, exactly what the job exists to prevent. A restore under another key therefore fails, naming
 * {@code --dedup-key}, unless {@code --allow-dedup-key-change} says the change is meant. That is the case
 * when only the fields' location changed and not their values (a producer moved {@code requestId} into
 * {@code /imp}): the identities are then unchanged and nothing passes twice. After an allowed change the
 * new key is what the state records.
 *
 * <p><b>State without a value</b> (state v1 and v2, or written by {@code dedup-tools bootstrap
 * --from-file}, whose rows name no fields) is accepted under any key, and records this job's key from its
 * first snapshot on.
 */
final class DedupKeyCheck {

    private static final Logger LOG = LoggerFactory.getLogger(DedupKeyCheck.class);

    private DedupKeyCheck() {}

    /**
     * Fails naming {@code --dedup-key} unless every restored value equals {@code configured}, or none was
     * restored, or {@code allowChange} (then logs the change as a warning).
     */
    static void verify(Iterable<String> restored, String configured, boolean allowChange) {
        for (String written : restored) {
            if (written.equals(configured)) {
                continue;
            }
            if (allowChange) {
                LOG.warn("The dedup state was written under the dedup key {}; this job runs with {} (--allow-dedup-key-change)."
                        + " If the values of the key fields changed, not only their location, copies of impressions stored"
                        + " before now pass once.", written, configured);
                return;
            }
            throw new IllegalStateException("The dedup state was written under the dedup key " + written + ", but this job runs with "
                    + configured + " (--dedup-key, or --request-id-field and --ad-id-field). Under another key every impression"
                    + " has another identity, so copies of the impressions stored before would pass as new, once. Run with the key"
                    + " the state was written with, or, if only the fields' location changed and not their values, add"
                    + " --allow-dedup-key-change.");
        }
    }
}
