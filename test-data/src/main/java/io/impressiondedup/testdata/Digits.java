package io.impressiondedup.testdata;

/** Decimal digits of a long written into a byte array, without the String that Long.toString makes. */
final class Digits {

    private Digits() {}

    /** Number of bytes {@link #write} uses for {@code value}. */
    static int length(long value) {
        if (value == Long.MIN_VALUE) {
            return 20;
        }
        int length = value < 0 ? 2 : 1;
        for (long v = Math.abs(value); v >= 10; v /= 10) {
            length++;
        }
        return length;
    }

    /** Writes {@code value} at {@code pos}; returns the position after it. */
    static int write(long value, byte[] out, int pos) {
        if (value == Long.MIN_VALUE) {
            byte[] min = Long.toString(value).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            System.arraycopy(min, 0, out, pos, min.length);
            return pos + min.length;
        }
        int end = pos + length(value);
        int i = end;
        long v = Math.abs(value);
        do {
            out[--i] = (byte) ('0' + (v % 10));
            v /= 10;
        } while (v != 0);
        if (value < 0) {
            out[--i] = '-';
        }
        return end;
    }
}
