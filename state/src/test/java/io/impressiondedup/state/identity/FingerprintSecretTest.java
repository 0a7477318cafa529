package io.impressiondedup.state.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

@Isolated // counts the JVM's check value derivations
class FingerprintSecretTest {

    private static final String HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

    @TempDir
    Path dir;

    @Test
    void aTrailingNewlineIsNotPartOfTheSecret() throws Exception {
        long bare = FingerprintSecret.read(write("bare", HEX)).checkValue();
        assertThat(FingerprintSecret.read(write("lf", HEX + "\n")).checkValue()).isEqualTo(bare);
        assertThat(FingerprintSecret.read(write("crlf", HEX + "\r\n")).checkValue()).isEqualTo(bare);
        assertThat(FingerprintSecret.read(write("two", HEX + "\n\n")).checkValue()).as("only one newline is trimmed").isNotEqualTo(bare);
    }

    @Test
    void anEmptyOrShortSecretIsRejectedSayingHowManyBytesItHasButNotWhich() throws Exception {
        assertThatThrownBy(() -> FingerprintSecret.read(write("empty", ""))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> FingerprintSecret.read(write("newline", "\n"))).hasMessageContaining("empty but for a newline");
        assertThatThrownBy(() -> FingerprintSecret.read(write("short", "fifteen-bytes!!\n"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16 to 1024 bytes, but has 15").hasMessageNotContaining("fifteen");
        assertThatThrownBy(() -> FingerprintSecret.read(write("long", "x".repeat(2000)))).hasMessageContaining("2000 bytes");
        assertThat(FingerprintSecret.read(write("sixteen", "sixteen-bytes!!!")).checkValue()).isNotZero();
    }

    @Test
    void aMissingFileFailsAsAnIoError() {
        assertThatThrownBy(() -> FingerprintSecret.read(dir.resolve("absent"))).isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void theCheckValueTellsSecretsApartAndIsNeverTheValueOfNoSecret() {
        FingerprintSecret a = FingerprintSecret.of(HEX.getBytes(StandardCharsets.US_ASCII));
        FingerprintSecret b = FingerprintSecret.of(HEX.replace('9', '8').getBytes(StandardCharsets.US_ASCII));
        assertThat(a.checkValue()).isNotEqualTo(b.checkValue()).isNotEqualTo(FingerprintSecret.NO_SECRET);
        assertThat(FingerprintSecret.checkValueOf(a)).isEqualTo(a.checkValue());
        assertThat(FingerprintSecret.checkValueOf(null)).isEqualTo(FingerprintSecret.NO_SECRET);
        assertThat(FingerprintSecret.of(HEX.getBytes(StandardCharsets.US_ASCII))).isEqualTo(a).isNotEqualTo(b);
    }

    @Test
    void theAdIdKeyIsSipHashKeyedByTheLabelledSha256OfTheKeyBlock() throws Exception {
        byte[] raw = HEX.getBytes(StandardCharsets.US_ASCII);
        FingerprintSecret secret = FingerprintSecret.of(raw);
        // SHA-256("impression-dedup ad-id key" || 0x00 || K0), K0 the secret zero-padded to 64 bytes; first 16 bytes, little-endian.
        java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
        input.write("impression-dedup ad-id key".getBytes(StandardCharsets.US_ASCII));
        input.write(0);
        input.write(java.util.Arrays.copyOf(raw, 64));
        java.nio.ByteBuffer key = java.nio.ByteBuffer.wrap(java.security.MessageDigest.getInstance("SHA-256").digest(input.toByteArray()))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long k0 = key.getLong();
        long k1 = key.getLong();

        assertThat(secret.keyedAdIdHash("ad-7")).isEqualTo(HashMixing.keyedAdIdHash(k0, k1, "ad-7"));
        FingerprintSecret other = FingerprintSecret.of(HEX.replace('9', '8').getBytes(StandardCharsets.US_ASCII));
        assertThat(other.keyedAdIdHash("ad-7")).isNotEqualTo(secret.keyedAdIdHash("ad-7"));
    }

    @Test
    void itsTextShowsTheCheckValueNeverTheSecret() {
        FingerprintSecret secret = FingerprintSecret.of(HEX.getBytes(StandardCharsets.US_ASCII));
        assertThat(secret.toString()).doesNotContain(HEX.substring(0, 8)).contains(FingerprintSecret.describeCheckValue(secret.checkValue()));
    }

    private Path write(String name, String contents) throws Exception {
        return Files.write(dir.resolve(name), contents.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void thePbkdf2IsTheJdksForAPasswordTheJdkCanTake() throws Exception {
        byte[] ours = FingerprintSecret.pbkdf2HmacSha256("password".getBytes(StandardCharsets.US_ASCII),
                "salt".getBytes(StandardCharsets.US_ASCII), 4096);
        byte[] jdks = javax.crypto.SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256")
                .generateSecret(new javax.crypto.spec.PBEKeySpec("password".toCharArray(), "salt".getBytes(StandardCharsets.US_ASCII), 4096, 256))
                .getEncoded();
        assertThat(ours).isEqualTo(jdks);
    }

    @Test
    void theCheckValueIsTheSlowDerivationOfCheckValueV1AndBothIdentifyTheSecret() {
        FingerprintSecret a = FingerprintSecret.of(HEX.getBytes(StandardCharsets.US_ASCII));
        FingerprintSecret b = FingerprintSecret.of(HEX.replace('9', '8').getBytes(StandardCharsets.US_ASCII));
        assertThat(a.checkValue()).isEqualTo(FingerprintSecret.checkValueV2Of(a.checkValueV1()))
                .isNotEqualTo(a.checkValueV1());
        assertThat(a.wroteCheckValue(a.checkValue())).isTrue();
        assertThat(a.wroteCheckValue(a.checkValueV1())).isTrue();
        assertThat(a.wroteCheckValue(b.checkValue())).isFalse();
        assertThat(a.wroteCheckValue(b.checkValueV1())).isFalse();
        assertThat(a.wroteCheckValue(FingerprintSecret.NO_SECRET)).isFalse();
        assertThat(FingerprintSecret.checkValueV2Of(FingerprintSecret.NO_SECRET)).isEqualTo(FingerprintSecret.NO_SECRET);
    }

    @Test
    void theSlowCheckValueIsDerivedOncePerJvmAndSecretHoweverOftenTheSecretIsRead() throws Exception {
        Path file = write("read-by-every-task", "a secret no other test of this JVM reads");
        long before = FingerprintSecret.checkValueDerivations();
        long first = FingerprintSecret.read(file).checkValue();
        for (int task = 0; task < 3; task++) {
            assertThat(FingerprintSecret.read(file).checkValue()).isEqualTo(first);
        }
        assertThat(FingerprintSecret.checkValueV2Of(FingerprintSecret.read(file).checkValueV1())).isEqualTo(first);
        assertThat(FingerprintSecret.checkValueDerivations() - before).as("PBKDF2 derivations for one secret read five times").isEqualTo(1);
    }
}
