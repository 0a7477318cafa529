package io.impressiondedup.state.identity;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Computes the MD5 digest of a request id (UTF-8), keyed by a {@link FingerprintSecret} if the job has
 * one: the single cryptographic hash a record costs.
 *
 * <p>MD5 is not used for security here: it is a fast, universally available 128-bit hash whose
 * output is uniform even for structured inputs such as time-based UUIDs (v1), whose leading hex
 * digits barely change, or sequential ids. Everything downstream (the shard, the fingerprint
 * truncated to {@code keyBits}, the Bloom probe positions) is derived from this digest, so a record
 * is hashed once however many filters it is checked against.
 *
 * <p><b>Keyed.</b> With a secret the digest is {@code MD5((K0 xor ipad) || utf8(requestId))} (see
 * {@link FingerprintSecret}). The key fills exactly one MD5 block, which is absorbed once, here; each
 * record clones that state (measured: about 10 ns and one short-lived object, where absorbing the
 * key block again would cost a second compression, about 120 ns) and adds its id, so a keyed digest
 * takes the same compressions as an unkeyed one. Without a secret the digest is plain MD5(requestId):
 * the digest that all state written without a secret holds, so that state stays valid.
 *
 * <p>One instance per thread: the {@link MessageDigest}, the UTF-8 buffer and the digest buffer are
 * reused, so unkeyed digesting allocates nothing once the buffer has grown to the longest id seen.
 */
public final class RequestIdDigester {

    private final MessageDigest md5;
    /** MD5 after absorbing the secret's key block; {@code null} without a secret. */
    private final MessageDigest keyed;
    private final byte[] digest = new byte[16];
    private byte[] utf8 = new byte[64];
    private long high;
    private long low;

    /** The unkeyed digester: MD5(requestId). */
    public RequestIdDigester() {
        this(null);
    }

    /** A digester keyed by {@code secret}, or unkeyed if it is {@code null}. */
    public RequestIdDigester(FingerprintSecret secret) {
        md5 = newMd5();
        if (secret == null) {
            keyed = null;
        } else {
            keyed = newMd5();
            keyed.update(secret.innerKeyBlock());
            cloneOf(keyed); // fails here, not at the first record, if the provider cannot clone
        }
    }

    private static MessageDigest newMd5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform must provide MD5", e);
        }
    }

    private static MessageDigest cloneOf(MessageDigest digest) {
        try {
            return (MessageDigest) digest.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("The MD5 provider " + digest.getProvider() + " cannot clone its state", e);
        }
    }

    /** Digests {@code requestId}; read the result with {@link #high()} and {@link #low()}. */
    public void digest(String requestId) {
        int length = encodeUtf8(requestId);
        MessageDigest md = keyed == null ? md5 : cloneOf(keyed);
        md.update(utf8, 0, length);
        try {
            md.digest(digest, 0, 16);
        } catch (java.security.DigestException e) {
            throw new IllegalStateException("MD5 digest does not fit 16 bytes", e);
        }
        high = readLongBigEndian(digest, 0);
        low = readLongBigEndian(digest, 8);
    }

    /** Bits 0..63 of the last digest (the first 8 bytes, big-endian). */
    public long high() {
        return high;
    }

    /** Bits 64..127 of the last digest (the last 8 bytes, big-endian). */
    public long low() {
        return low;
    }

    /**
     * UTF-8 encoding into the reused buffer, equal to {@code s.getBytes(UTF_8)} including the
     * replacement of unpaired surrogates by '?', without allocating a byte array per record.
     */
    private int encodeUtf8(String s) {
        int n = s.length();
        if (utf8.length < n * 3) {
            utf8 = new byte[Math.max(n * 3, utf8.length * 2)];
        }
        byte[] out = utf8;
        // ASCII first (request ids nearly always are): a tight loop the JIT keeps simple.
        int ascii = 0;
        while (ascii < n) {
            char c = s.charAt(ascii);
            if (c >= 0x80) {
                break;
            }
            out[ascii++] = (byte) c;
        }
        if (ascii == n) {
            return n;
        }
        int pos = ascii;
        for (int i = ascii; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                out[pos++] = (byte) c;
            } else if (c < 0x800) {
                out[pos++] = (byte) (0xC0 | (c >> 6));
                out[pos++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < n
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out[pos++] = (byte) (0xF0 | (cp >> 18));
                out[pos++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[pos++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[pos++] = (byte) (0x80 | (cp & 0x3F));
            } else if (Character.isSurrogate(c)) {
                out[pos++] = (byte) '?';
            } else {
                out[pos++] = (byte) (0xE0 | (c >> 12));
                out[pos++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[pos++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return pos;
    }

    private static long readLongBigEndian(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFFL);
        }
        return v;
    }
}
