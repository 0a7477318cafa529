package io.impressiondedup.state.identity;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The secret that keys the request-id digest ({@code --fingerprint-secret-file}), so that whoever
 * crafts request and ad ids cannot tell which shard a request lands in or which Bloom bits it sets.
 *
 * <p><b>Why.</b> Unkeyed, the digest is MD5(requestId), which anyone can compute: an attacker can pick
 * ids that all land in one shard, or ad ids whose probes hit chosen bits, and so grow one shard's
 * filter without bound or raise its false-positive rate for everyone else in it. With a secret the
 * digest is a keyed function (below) that gives nothing away without the secret: ids land in shards
 * and blocks as uniformly as random ones, whoever chose them. (One request id with many ad ids still
 * lands in one shard by design, since all ads of a request share it; the shard state cap bounds that
 * case, see {@code DedupPlan}.)
 *
 * <p><b>Construction.</b> The digest is {@code MD5((K0 xor ipad) || utf8(requestId))}, the inner hash
 * of HMAC-MD5 (RFC 2104): K0 is the secret zero-padded to MD5's 64-byte block (a secret longer than
 * that is first replaced by its MD5, as HMAC does), ipad the byte 0x36 repeated. Because the key
 * fills exactly one block, {@link RequestIdDigester} absorbs it once and clones that state per record:
 * a record costs the same MD5 compressions as without a secret. HMAC's outer hash is left out on
 * purpose: it only stops length extension, which needs a whole digest to start from, and digests never
 * leave the job.
 *
 * <p><b>Length.</b> 16 to 1024 bytes, as read from the file with one trailing newline ({@code \n} or
 * {@code \r\n}) removed. 16 bytes are 128 bits of raw secret, or 64 bits written as hex: far beyond
 * guessing, since every guess would cost the attacker traffic through the job and a way to observe
 * shards; {@code openssl rand -hex 32} (256 bits) is the recommended way to make one. Above 1024
 * bytes the file is most likely not a secret but the wrong file.
 *
 * <p><b>Check value.</b> State records which secret it was written with as {@link #checkValue()}, and a restore
 * compares it with the configured one. The check value is in every savepoint, error message and {@code inspect}
 * report, so it must not let its holder test guesses of the secret cheaply. <b>Check value v2</b>, which state v4 and
 * later hold, is a slow derivation: PBKDF2-HMAC-SHA256 ({@value #CHECK_ITERATIONS} iterations, the OWASP figure for
 * this PRF) of the 8-byte <b>check value v1</b> (the first 8 bytes of SHA-256("impression-dedup fingerprint check" ||
 * 0x00 || K0), which state v2 and v3 hold; {@link #checkValueV1()}), salted with the fixed label {@code
 * "impression-dedup fingerprint check v2"}; its first 8 bytes, never 0, which is reserved for "no secret". The
 * versions are listed in docs/COMPATIBILITY.md. What a holder of a savepoint can and cannot do:
 *
 * <ul>
 *   <li>He can test a guess of the secret: each one costs 600,000 HMAC-SHA256 (about a quarter of a second of a CPU
 *       core here; a GPU does thousands a second), where an unsalted SHA-256 such as check value v1 costs one hash
 *       (billions a second). So a human-chosen secret from a dictionary of a few million words does not fall in a
 *       second; one made as recommended (128 bits or more of randomness) is out of reach either way.
 *   <li>He can reuse one table of guesses against every deployment: the label is fixed, not a random salt per
 *       state. A random salt would stop only such tables, which a secret of 16 bytes or more defeats by its size
 *       anyway; it would cost a field in state and make no single guess dearer. The label does make tables built
 *       for any other use of PBKDF2 useless here.
 *   <li>He cannot learn the digest key from the value other than by guessing the secret: it is a one-way function
 *       of it, and 64 bits of it tell the secret apart, no more.
 * </ul>
 *
 * Because v2 is derived from v1, a restore can accept state holding check value v1 while knowing only the
 * configured v2: a restored value {@code L} is the configured secret's if {@link #checkValueV2Of}(L) equals it.
 * The operator writes v2 from then on. The job derives it where the file is read (the client, and each source task
 * where it opens), never per record, and <b>once per JVM and secret</b>: {@link #checkValueV2Of} keeps what it
 * derived, so the other source tasks of a TaskManager and every restart after a failure find it (600,000 HMACs are
 * a quarter of a second of a core with the JIT's SHA intrinsics, over a second without). What it keeps is a map from
 * check value v1 to v2, both already in state; in a TaskManager it lives in the job's class loader and goes with
 * the job.
 * The secret itself is never logged, printed or kept in state.
 *
 * <p><b>Ad-id key.</b> The ad id enters an impression's identity through a 64-bit hash; unkeyed ({@link
 * HashMixing#adIdHash}) anyone can craft two ad ids with one hash, which are then one identity under every request
 * id. With a secret the ad id is hashed by SipHash-2-4 ({@link HashMixing#keyedAdIdHash}) under a 128-bit key of its
 * own: the first 16 bytes of SHA-256("impression-dedup ad-id key" || 0x00 || K0), read as two little-endian longs
 * (SipHash's own reading of a 16-byte key). A label of its own keeps it independent of the digest key and of the
 * check value. Derived here, once, with the key block; like the secret it is never logged or kept in state.
 *
 * <p><b>Not serializable</b>, on purpose: a job graph carries {@link FingerprintSecretFile} (the path and the check
 * value) and each task reads the secret where it opens, so the secret and its key block never reach a serialized job
 * graph or the JobManager's HA store.
 */
public final class FingerprintSecret {

    public static final int MIN_BYTES = 16;
    public static final int MAX_BYTES = 1024;
    /** The check value of state written without a secret (and what state v1, which records none, counts as). */
    public static final long NO_SECRET = 0L;

    /** MD5's block size: the key block fills exactly one. */
    static final int BLOCK_BYTES = 64;
    private static final byte IPAD = 0x36;
    private static final byte[] AD_ID_KEY_LABEL = "impression-dedup ad-id key".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHECK_LABEL = "impression-dedup fingerprint check".getBytes(StandardCharsets.US_ASCII);
    /** PBKDF2's salt for the check value: fixed per format, see the class comment for why not random. */
    private static final byte[] SLOW_CHECK_LABEL = "impression-dedup fingerprint check v2".getBytes(StandardCharsets.US_ASCII);
    /** PBKDF2-HMAC-SHA256 iterations of the check value (OWASP's recommendation for this PRF, 2023). */
    static final int CHECK_ITERATIONS = 600_000;

    /**
     * Check values v2 derived in this JVM, by their check value v1 (see the class comment). A JVM meets one secret,
     * or two around a secret change; the bound only keeps a restore of hostile state from growing the map.
     */
    private static final Map<Long, Long> DERIVED_CHECK_VALUES = new ConcurrentHashMap<>();
    private static final int MAX_DERIVED_CHECK_VALUES = 16;
    private static final AtomicLong CHECK_VALUE_DERIVATIONS = new AtomicLong();

    /** {@code K0 xor ipad}: what the digester absorbs before every request id. */
    private final byte[] innerKeyBlock;
    private final long checkValueV1;
    /** The SipHash key of ad ids (see the class comment). */
    private final long adIdKey0;
    private final long adIdKey1;
    /** Check value v2: {@link #checkValueV2Of} of check value v1, derived on first use (it is slow); 0 while not yet derived. */
    private long checkValue;

    private FingerprintSecret(byte[] secret) {
        byte[] k0 = Arrays.copyOf(secret.length > BLOCK_BYTES ? digest("MD5", secret) : secret, BLOCK_BYTES);
        this.innerKeyBlock = new byte[BLOCK_BYTES];
        for (int i = 0; i < BLOCK_BYTES; i++) {
            innerKeyBlock[i] = (byte) (k0[i] ^ IPAD);
        }
        this.checkValueV1 = checkValueOfKeyBlock(k0);
        byte[] adIdKey = labelledSha256(AD_ID_KEY_LABEL, k0);
        this.adIdKey0 = littleEndianLong(adIdKey, 0);
        this.adIdKey1 = littleEndianLong(adIdKey, 8);
        Arrays.fill(adIdKey, (byte) 0);
        Arrays.fill(k0, (byte) 0);
    }

    /** A secret of the given bytes (16 to 1024 of them). */
    public static FingerprintSecret of(byte[] secret) {
        checkArgument(secret.length >= MIN_BYTES && secret.length <= MAX_BYTES,
                "a fingerprint secret must have %s to %s bytes, but has %s", MIN_BYTES, MAX_BYTES, secret.length);
        return new FingerprintSecret(secret);
    }

    /**
     * The secret in {@code file}: its bytes without one trailing newline. Fails with an {@link
     * IOException} if the file cannot be read, with an {@link IllegalArgumentException} (saying how many
     * bytes it has, never which) if it is empty or of the wrong length.
     */
    public static FingerprintSecret read(Path file) throws IOException {
        long size = Files.size(file); // NoSuchFileException if it is not there
        if (!Files.isRegularFile(file)) {
            throw new IOException(file + " is not a regular file");
        }
        if (size > MAX_BYTES + 2) {
            throw new IllegalArgumentException("the file has " + size + " bytes; a fingerprint secret has " + MIN_BYTES + " to " + MAX_BYTES);
        }
        byte[] contents = Files.readAllBytes(file);
        int length = contents.length;
        if (length > 0 && contents[length - 1] == '\n') {
            length--;
            if (length > 0 && contents[length - 1] == '\r') {
                length--;
            }
        }
        byte[] secret = Arrays.copyOf(contents, length);
        Arrays.fill(contents, (byte) 0);
        try {
            if (length == 0) {
                throw new IllegalArgumentException("the file is empty" + (contents.length > 0 ? " but for a newline" : "")
                        + "; a fingerprint secret has " + MIN_BYTES + " to " + MAX_BYTES + " bytes (e.g. openssl rand -hex 32)");
            }
            return of(secret);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /** The check value state keeps for {@code secret}, {@link #NO_SECRET} for {@code null}. */
    public static long checkValueOf(FingerprintSecret secret) {
        return secret == null ? NO_SECRET : secret.checkValue();
    }

    /** Identifies the secret in state without revealing it; never {@link #NO_SECRET}. Slow the first time (see above). */
    public synchronized long checkValue() {
        if (checkValue == NO_SECRET) {
            checkValue = checkValueV2Of(checkValueV1);
        }
        return checkValue;
    }

    /**
     * Check value v1: the fast, unsalted check value that state v2 and v3 hold; accepted on restore and in {@code
     * inspect}, never written.
     */
    public long checkValueV1() {
        return checkValueV1;
    }

    /** Whether state recording {@code written} was written with this secret: its check value v2 or v1. */
    public boolean wroteCheckValue(long written) {
        return written != NO_SECRET && (written == checkValueV1 || written == checkValue());
    }

    /**
     * Check value v2 of the secret whose check value v1 is the argument ({@link #NO_SECRET} for none): what a
     * restore that knows only the configured check value uses to recognise state holding v1.
     */
    public static long checkValueV2Of(long checkValueV1) {
        if (checkValueV1 == NO_SECRET) {
            return NO_SECRET;
        }
        Long derived = DERIVED_CHECK_VALUES.get(checkValueV1);
        if (derived != null) {
            return derived;
        }
        if (DERIVED_CHECK_VALUES.size() >= MAX_DERIVED_CHECK_VALUES) {
            return deriveCheckValueV2(checkValueV1); // restored state holding many v1 values: derive each, keep none
        }
        // Tasks opening together wait for the one derivation rather than each run their own.
        return DERIVED_CHECK_VALUES.computeIfAbsent(checkValueV1, FingerprintSecret::deriveCheckValueV2);
    }

    /** How many check values v2 this JVM has derived (each costs {@value #CHECK_ITERATIONS} HMACs). */
    static long checkValueDerivations() {
        return CHECK_VALUE_DERIVATIONS.get();
    }

    private static long deriveCheckValueV2(long checkValueV1) {
        CHECK_VALUE_DERIVATIONS.incrementAndGet();
        byte[] password = new byte[8];
        for (int i = 0; i < 8; i++) {
            password[i] = (byte) (checkValueV1 >>> (56 - 8 * i));
        }
        return firstLongNonZero(pbkdf2HmacSha256(password, SLOW_CHECK_LABEL, CHECK_ITERATIONS));
    }

    /**
     * PBKDF2 (RFC 8018) with HMAC-SHA256, its first block (32 bytes), written out because the JDK's takes the password
     * as characters, and the password here is bytes.
     */
    static byte[] pbkdf2HmacSha256(byte[] password, byte[] salt, int iterations) {
        try {
            javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256");
            hmac.init(new javax.crypto.spec.SecretKeySpec(password, "HmacSHA256"));
            hmac.update(salt);
            byte[] u = hmac.doFinal(new byte[] {0, 0, 0, 1}); // INT(1): the first block
            byte[] t = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = hmac.doFinal(u);
                for (int k = 0; k < t.length; k++) {
                    t[k] ^= u[k];
                }
            }
            return t;
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("Every Java platform must provide HmacSHA256", e);
        }
    }

    /**
     * The hash of {@code adId} keyed by this secret ({@link HashMixing#keyedAdIdHash} under the ad-id key): what an
     * impression's identity holds of its ad id when the job has a secret.
     */
    public long keyedAdIdHash(CharSequence adId) {
        return HashMixing.keyedAdIdHash(adIdKey0, adIdKey1, adId);
    }

    /** The block absorbed before each request id; for {@link RequestIdDigester} only. */
    byte[] innerKeyBlock() {
        return innerKeyBlock;
    }

    /** The check value as the error messages show it. */
    public static String describeCheckValue(long checkValue) {
        return checkValue == NO_SECRET ? "none" : String.format("%016x", checkValue);
    }

    private static long checkValueOfKeyBlock(byte[] k0) {
        return firstLongNonZero(labelledSha256(CHECK_LABEL, k0));
    }

    /** SHA-256(label || 0x00 || k0): a value derived from the key block for one purpose, named by its label. */
    private static byte[] labelledSha256(byte[] label, byte[] k0) {
        byte[] input = new byte[label.length + 1 + k0.length];
        System.arraycopy(label, 0, input, 0, label.length);
        System.arraycopy(k0, 0, input, label.length + 1, k0.length);
        byte[] sha = digest("SHA-256", input);
        Arrays.fill(input, (byte) 0);
        return sha;
    }

    private static long littleEndianLong(byte[] bytes, int from) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = (value << 8) | (bytes[from + i] & 0xFFL);
        }
        return value;
    }

    private static long firstLongNonZero(byte[] bytes) {
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[i] & 0xFFL);
        }
        return value == NO_SECRET ? 1 : value; // 0 means "no secret"; a 2^-64 chance, but never ambiguous
    }

    private static byte[] digest(String algorithm, byte[] input) {
        try {
            return MessageDigest.getInstance(algorithm).digest(input);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform must provide " + algorithm, e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FingerprintSecret && MessageDigest.isEqual(innerKeyBlock, ((FingerprintSecret) o).innerKeyBlock);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(checkValueV1);
    }

    /** Never the secret: only its check value. */
    @Override
    public String toString() {
        return "FingerprintSecret{check=" + describeCheckValue(checkValue()) + '}';
    }
}
