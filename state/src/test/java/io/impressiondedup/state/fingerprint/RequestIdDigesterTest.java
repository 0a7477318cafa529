package io.impressiondedup.state.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestIdDigesterTest {

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

        ByteBuffer actual = ByteBuffer.allocate(16).putLong(digester.high()).putLong(digester.low());
        assertThat(actual.array()).isEqualTo(expected);
    }
}
