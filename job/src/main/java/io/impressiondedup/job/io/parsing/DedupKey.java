package io.impressiondedup.job.io.parsing;

/**
 * The identity rule of an impression, written once: what makes two records copies of each other.
 *
 * <p>The identity is the tuple of the key fields ({@code --dedup-key}; by default (request id, ad id), from
 * {@code --request-id-field} and {@code --ad-id-field}). Every key field is a non-empty string or an integer,
 * taken as its text as written (so {@code 17} and {@code "17"} are one value, and {@code -0} is not {@code 0}),
 * except the default key's request id, which must be a string, so that the default key accepts and refuses
 * the same records in every version of the job (its state and dead letters stay comparable across upgrades).
 * A string must be valid Unicode (no unpaired surrogate, valid UTF-8 bytes: the format's reader checks that),
 * so distinct strings have distinct UTF-8 bytes.
 *
 * <p>The first field's text is digested (MD5, keyed by {@code --fingerprint-secret-file}) and that digest
 * shards the state: with the default key, the request id's, so all the ads of one request live in one shard.
 * The rest of the tuple is one string, {@link #rest}, that the operator hashes where it hashes the ad id
 * ({@code Impression.adId}):
 *
 * <ul>
 *   <li>two fields: exactly the second field's text, so the default key's identity is (the request id's
 *       digest, the ad id) bit for bit, the form its savepoints and fingerprints hold in every version;
 *   <li>one field: the empty string (every record of one first value is one identity);
 *   <li>three or more: fields 2..n joined as {@code <length>:<text>} each (length in UTF-16 units), which no
 *       two distinct tuples share: reading the lengths back splits the string one way only, so
 *       ("a", "bc") and ("ab", "c") stay apart ({@code 1:a2:bc} against {@code 2:ab1:c}).
 * </ul>
 *
 * Changing the key of a running job changes every identity, so the state records the key ({@code
 * ParserSettings#keyDescription()}) and a restore under another one fails unless {@code --allow-dedup-key-change}
 * (the rule: {@code DedupKeyCheck} in the operators module).
 */
public final class DedupKey {

    private DedupKey() {}

    /** What the operator hashes beside the first field's digest, for the key field texts {@code values} (see the class). */
    public static String rest(String[] values) {
        switch (values.length) {
            case 1:
                return "";
            case 2:
                return values[1];
            default:
                StringBuilder joined = new StringBuilder();
                for (int i = 1; i < values.length; i++) {
                    joined.append(values[i].length()).append(':').append(values[i]);
                }
                return joined.toString();
        }
    }

    /** The index of the first unpaired UTF-16 surrogate in {@code text}, or -1: such a string is no valid key value. */
    public static int unpairedSurrogate(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }
}
