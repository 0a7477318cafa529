package io.impressiondedup.testdata;

import java.nio.charset.StandardCharsets;

/**
 * Decimal digits of a long written into a byte array, without the String that Long.toString makes.
 *
 * <p>Every generated record carries four or five such numbers (epoch-millis timestamps of 13 digits,
 * sequence numbers), so this is on the generator's hot path: the length comes from the bit length and
 * one comparison, the digits from one long division per nine digits and int arithmetic, two digits at
 * a time, for the rest (a digit-by-digit loop of long divisions took a quarter of the generator's time).
 */
public final class Digits {

    private static final long[] POWERS_OF_TEN = new long[19];
    private static final byte[] LONG_MIN = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
    private static final int NINE_DIGITS = 1_000_000_000;

    static {
        long power = 1;
        for (int i = 0; i < POWERS_OF_TEN.length; i++) {
            POWERS_OF_TEN[i] = power;
            power *= 10;
        }
    }

    private Digits() {}

    /** Number of bytes {@link #write} uses for {@code value}. */
    public static int length(long value) {
        if (value == Long.MIN_VALUE) {
            return LONG_MIN.length;
        }
        if (value < 0) {
            return 1 + length(-value);
        }
        if (value == 0) {
            return 1;
        }
        // bits * log10(2) (1233 / 4096) is the digit count or one less; one comparison settles it.
        int bits = Long.SIZE - Long.numberOfLeadingZeros(value);
        int guess = (bits * 1233) >>> 12;
        return value >= POWERS_OF_TEN[guess] ? guess + 1 : guess;
    }

    /** Writes {@code value} at {@code pos}; returns the position after it. */
    public static int write(long value, byte[] out, int pos) {
        if (value == Long.MIN_VALUE) {
            System.arraycopy(LONG_MIN, 0, out, pos, LONG_MIN.length);
            return pos + LONG_MIN.length;
        }
        if (value < 0) {
            out[pos++] = '-';
            value = -value;
        }
        int end = pos + length(value);
        int i = end;
        while (value >= NINE_DIGITS) {
            long high = value / NINE_DIGITS;
            int low = (int) (value - high * NINE_DIGITS);
            for (int pair = 0; pair < 4; pair++) {
                i = writeTwoDigits(low % 100, out, i);
                low /= 100;
            }
            out[--i] = (byte) ('0' + low);
            value = high;
        }
        int rest = (int) value;
        while (rest >= 100) {
            i = writeTwoDigits(rest % 100, out, i);
            rest /= 100;
        }
        if (rest >= 10) {
            writeTwoDigits(rest, out, i);
        } else {
            out[--i] = (byte) ('0' + rest);
        }
        return end;
    }

    /** Writes 00..99 as two digits ending before {@code end}; returns where they start. */
    private static int writeTwoDigits(int twoDigits, byte[] out, int end) {
        out[end - 1] = (byte) ('0' + twoDigits % 10);
        out[end - 2] = (byte) ('0' + twoDigits / 10);
        return end - 2;
    }
}
