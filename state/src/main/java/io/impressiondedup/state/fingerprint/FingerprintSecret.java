package io.impressiondedup.state.fingerprint;

import static org.apache.flink.util.Preconditions.checkArgument;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

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
 * <p><b>Check value.</b> State records which secret it was written with as {@link #checkValue()}: the
 * first 8 bytes of SHA-256("impression-dedup fingerprint check" || 0x00 || K0), never 0, which is
 * reserved for "no secret". A restore compares it with the configured one; it reveals nothing usable
 * about a secret of 16 bytes or more. The secret itself is never logged, printed or kept in state.
 *
 * <p><b>Not serializable</b>, on purpose: a job graph carries {@link FingerprintSecretFile} (the path and the check
 * value) and each task reads the secret where it opens, so the secret and its key block never reach a serialized job
 * graph or the JobManager's HA store.
 */
public final class FingerprintSecret {

    public static final int MIN_BYTES = 16;
    public static final int MAX_BYTES = 1024;
    /** The check value of state written without a secret (and of state from before secrets existed). */
    public static final long NO_SECRET = 0L;

    /** MD5's block size: the key block fills exactly one. */
    static final int BLOCK_BYTES = 64;
    private static final byte IPAD = 0x36;
    private static final byte[] CHECK_LABEL = "impression-dedup fingerprint check".getBytes(StandardCharsets.US_ASCII);

    /** {@code K0 xor ipad}: what the digester absorbs before every request id. */
    private final byte[] innerKeyBlock;
    private final long checkValue;

    private FingerprintSecret(byte[] secret) {
        byte[] k0 = Arrays.copyOf(secret.length > BLOCK_BYTES ? digest("MD5", secret) : secret, BLOCK_BYTES);
        this.innerKeyBlock = new byte[BLOCK_BYTES];
        for (int i = 0; i < BLOCK_BYTES; i++) {
            innerKeyBlock[i] = (byte) (k0[i] ^ IPAD);
        }
        this.checkValue = checkValueOfKeyBlock(k0);
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
        return secret == null ? NO_SECRET : secret.checkValue;
    }

    /** Identifies the secret in state without revealing it; never {@link #NO_SECRET}. */
    public long checkValue() {
        return checkValue;
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
        byte[] input = new byte[CHECK_LABEL.length + 1 + k0.length];
        System.arraycopy(CHECK_LABEL, 0, input, 0, CHECK_LABEL.length);
        System.arraycopy(k0, 0, input, CHECK_LABEL.length + 1, k0.length);
        byte[] sha = digest("SHA-256", input);
        Arrays.fill(input, (byte) 0);
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (sha[i] & 0xFFL);
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
        return Long.hashCode(checkValue);
    }

    /** Never the secret: only its check value. */
    @Override
    public String toString() {
        return "FingerprintSecret{check=" + describeCheckValue(checkValue) + '}';
    }
}
