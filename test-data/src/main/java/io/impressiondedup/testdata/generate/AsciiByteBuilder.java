package io.impressiondedup.testdata.generate;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import io.impressiondedup.testdata.Digits;

/**
 * A growable buffer of ASCII bytes: the generator assembles each impression's JSON in one reused
 * buffer and copies out the exact bytes, instead of a StringBuilder, its String and the String's
 * UTF-8 copy per record. Everything appended must be ASCII (generated ids, field names, numbers).
 */
public final class AsciiByteBuilder {

    private static final byte[] HEX = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

    private byte[] bytes;
    private int length;

    public AsciiByteBuilder(int capacity) {
        bytes = new byte[capacity];
    }

    public AsciiByteBuilder reset() {
        length = 0;
        return this;
    }

    public AsciiByteBuilder append(String ascii) {
        int n = ascii.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            bytes[length++] = (byte) ascii.charAt(i);
        }
        return this;
    }

    public AsciiByteBuilder append(byte[] ascii) {
        ensure(ascii.length);
        System.arraycopy(ascii, 0, bytes, length, ascii.length);
        length += ascii.length;
        return this;
    }

    public AsciiByteBuilder append(char ascii) {
        ensure(1);
        bytes[length++] = (byte) ascii;
        return this;
    }

    /** Decimal, as {@link Long#toString(long)}. */
    public AsciiByteBuilder append(long value) {
        ensure(20);
        length = Digits.write(value, bytes, length);
        return this;
    }

    /** Lower-case hex without leading zeros, as {@link Long#toHexString(long)}. */
    public AsciiByteBuilder appendHex(long value) {
        int digits = Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(value) + 3) / 4);
        ensure(digits);
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) {
            bytes[length++] = HEX[(int) (value >>> shift) & 0xF];
        }
        return this;
    }

    /** The bytes of each string, which must be ASCII: constants appended per record without a char loop. */
    static byte[][] ascii(String... strings) {
        byte[][] bytes = new byte[strings.length][];
        for (int i = 0; i < strings.length; i++) {
            bytes[i] = strings[i].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }

    static byte[] ascii(String string) {
        return string.getBytes(StandardCharsets.US_ASCII);
    }

    public byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    private void ensure(int more) {
        if (length + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
        }
    }
}
