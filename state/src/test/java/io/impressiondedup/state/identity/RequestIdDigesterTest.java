package io.impressiondedup.state.identity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestIdDigesterTest {

    private static final FingerprintSecret SECRET = FingerprintSecret.of("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private static final FingerprintSecret OTHER_SECRET = FingerprintSecret.of("fedcba9876543210fedcba9876543210".getBytes(StandardCharsets.US_ASCII));

    @ParameterizedTest
    @ValueSource(strings = {
        "",
        "6f1c2a9e-3b7d-4c2e-9a51-0d4e8f7b2c13",
        "req-\u00e9t\u00e9-\u4e2d\u6587",
        "emoji-\uD83D\uDE00-pair",
        "unpaired-\uD800-high",
        "unpaired-\uDC00-low",
        "a-very-long-request-id-that-is-not-a-uuid-but-must-still-be-digested-exactly-like-the-jdk-does-it-0123456789"
    })
    void digestEqualsJdkMd5OfUtf8Bytes(String requestId) throws Exception {
        byte[] expected = MessageDigest.getInstance("MD5").digest(requestId.getBytes(StandardCharsets.UTF_8));
        RequestIdDigester digester = new RequestIdDigester();

        digester.digest("something else first, to show the digester carries no state over");
        digester.digest(requestId);

        assertThat(bytes(digester)).isEqualTo(expected);
    }

    @Test
    void withoutASecretTheDigestIsThePlainMd5EveryEarlierReleaseStoredSoExistingStateStaysValid() throws Exception {
        RequestIdDigester noSecret = new RequestIdDigester(null);
        noSecret.digest("6f1c2a9e-3b7d-4c2e-9a51-0d4e8f7b2c13");
        assertThat(bytes(noSecret))
                .isEqualTo(MessageDigest.getInstance("MD5").digest("6f1c2a9e-3b7d-4c2e-9a51-0d4e8f7b2c13".getBytes(StandardCharsets.UTF_8)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "6f1c2a9e-3b7d-4c2e-9a51-0d4e8f7b2c13", "req-\u00e9t\u00e9-\u4e2d\u6587",
        "an-id-longer-than-one-md5-block-so-the-keyed-digest-spans-several-blocks-0123456789-0123456789"})
    void aKeyedDigestIsTheInnerHashOfHmacMd5(String requestId) throws Exception {
        RequestIdDigester keyed = new RequestIdDigester(SECRET);
        keyed.digest("another id first, to show the keyed state is not consumed by a record");
        keyed.digest(requestId);

        assertThat(bytes(keyed)).isEqualTo(innerHmacMd5("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII), requestId));
    }

    @Test
    void aSecretLongerThanOneBlockIsFirstReplacedByItsMd5AsHmacDoes() throws Exception {
        byte[] longSecret = new byte[100];
        for (int i = 0; i < longSecret.length; i++) {
            longSecret[i] = (byte) (i * 31 + 7);
        }
        RequestIdDigester keyed = new RequestIdDigester(FingerprintSecret.of(longSecret));
        keyed.digest("r-1");
        assertThat(bytes(keyed)).isEqualTo(innerHmacMd5(MessageDigest.getInstance("MD5").digest(longSecret), "r-1"));
    }

    @Test
    void theSameIdUnderDifferentSecretsHasUnrelatedDigestsAndShards() {
        RequestIdDigester plain = new RequestIdDigester();
        RequestIdDigester keyed = new RequestIdDigester(SECRET);
        RequestIdDigester otherKeyed = new RequestIdDigester(OTHER_SECRET);
        int ids = 2000;
        int sameShardAsPlain = 0;
        int sameShardAcrossSecrets = 0;
        for (int i = 0; i < ids; i++) {
            String id = "r-" + i;
            plain.digest(id);
            keyed.digest(id);
            otherKeyed.digest(id);
            assertThat(keyed.high()).isNotEqualTo(plain.high()).isNotEqualTo(otherKeyed.high());
            assertThat(keyed.low()).isNotEqualTo(plain.low()).isNotEqualTo(otherKeyed.low());
            int shard = FingerprintScheme.shardOf(keyed.high(), 128);
            sameShardAsPlain += shard == FingerprintScheme.shardOf(plain.high(), 128) ? 1 : 0;
            sameShardAcrossSecrets += shard == FingerprintScheme.shardOf(otherKeyed.high(), 128) ? 1 : 0;
        }
        // Unrelated shards agree 1 time in 128: about 16 of 2,000 (3 sigma: 28).
        assertThat(sameShardAsPlain).isLessThan(40);
        assertThat(sameShardAcrossSecrets).isLessThan(40);
    }

    @Test
    void idsChosenToMeetInOneShardSpreadOverAllShardsUnderASecretTheyDoNotKnow() {
        // The attack: without a secret anyone can pick ids whose MD5 puts them all in shard 0.
        int shards = 128;
        RequestIdDigester plain = new RequestIdDigester();
        List<String> crafted = new ArrayList<>();
        for (int i = 0; crafted.size() < 64 * shards; i++) {
            plain.digest("attack-" + i);
            if (FingerprintScheme.shardOf(plain.high(), shards) == 0) {
                crafted.add("attack-" + i);
            }
        }

        RequestIdDigester keyed = new RequestIdDigester(SECRET);
        long[] perShard = new long[shards];
        for (String id : crafted) {
            keyed.digest(id);
            perShard[FingerprintScheme.shardOf(keyed.high(), shards)]++;
        }
        // 8,192 ids over 128 shards: 64 expected each; the busiest is within a few sigma of it.
        assertThat(java.util.Arrays.stream(perShard).max().orElseThrow()).isLessThan(64 + 5 * 8);
        assertThat(java.util.Arrays.stream(perShard).min().orElseThrow()).isGreaterThan(64 - 5 * 8);
    }

    /** MD5((K0 xor 0x36..) || utf8(id)), K0 the key zero-padded to 64 bytes: RFC 2104's inner hash, computed the plain way. */
    private static byte[] innerHmacMd5(byte[] key, String requestId) throws Exception {
        byte[] block = new byte[64];
        System.arraycopy(key, 0, block, 0, key.length);
        for (int i = 0; i < 64; i++) {
            block[i] ^= 0x36;
        }
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        md5.update(block);
        return md5.digest(requestId.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] bytes(RequestIdDigester digester) {
        return ByteBuffer.allocate(16).putLong(digester.high()).putLong(digester.low()).array();
    }
}
