package io.impressiondedup.testdata;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import io.impressiondedup.testdata.generate.AsciiByteBuilder;

class DigitsTest {

    static List<Long> interestingValues() {
        List<Long> values = new ArrayList<>(List.of(0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1, 999_999_999L,
                1_000_000_000L, 1_000_000_001L, 1_763_769_600_123L, 253_402_300_799_999L));
        for (long power = 1; power > 0 && power <= Long.MAX_VALUE / 10; power *= 10) {
            values.add(power - 1);
            values.add(power);
            values.add(-power);
        }
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 100_000; i++) {
            values.add(random.nextLong() >> random.nextInt(64));
        }
        return values;
    }

    @Test
    void writesWhatLongToStringWritesAndSaysHowLongItIs() {
        byte[] out = new byte[40];
        for (long value : interestingValues()) {
            String expected = Long.toString(value);
            out[3 + expected.length()] = 'x';
            int end = Digits.write(value, out, 3);
            assertThat(new String(out, 3, end - 3, StandardCharsets.US_ASCII)).as("%d", value).isEqualTo(expected);
            assertThat(Digits.length(value)).as("%d", value).isEqualTo(expected.length());
            assertThat(out[end]).as("byte after %d untouched", value).isEqualTo((byte) 'x');
        }
    }

    @Test
    void hexAndDecimalAppendsMatchTheJdksFormatting() {
        AsciiByteBuilder builder = new AsciiByteBuilder(4);
        for (long value : interestingValues()) {
            byte[] bytes = builder.reset().append(value).append(',').appendHex(value).toByteArray();
            assertThat(new String(bytes, StandardCharsets.US_ASCII)).isEqualTo(value + "," + Long.toHexString(value));
        }
    }
}
