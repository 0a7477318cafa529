package io.impressiondedup.job.io.parsing;

/**
 * UTF-8 as RFC 3629 defines it, checked on a value's bytes, and how a dead letter describes bytes that are not
 * (what is wrong, at which byte, the bytes), alike for every kind. Jackson decodes some invalid UTF-8 without
 * complaint (overlong forms, encoded surrogates, code points beyond U+10FFFF): {@link JsonImpressionParser} says
 * which bytes it checks with this class and why.
 */
final class Utf8Validity {

    private Utf8Validity() {}

    /**
     * Whether Jackson reads {@code value} (not empty) as UTF-8. It reads it as UTF-16 or UTF-32 if it begins
     * with their byte-order mark (FE FF, FF FE, 00 00 FE FF, ...) or has a zero byte among its first four (as
     * ASCII in those encodings has); no UTF-8 JSON does either.
     */
    static boolean readAsUtf8(byte[] value) {
        for (int i = 0, n = Math.min(4, value.length); i < n; i++) {
            if (value[i] == 0) {
                return false;
            }
        }
        return value[0] != (byte) 0xFE && value[0] != (byte) 0xFF;
    }

    /**
     * The offset of the first byte in {@code value[from, to)} that does not begin a valid UTF-8 sequence
     * (RFC 3629: no overlong form, no surrogate, nothing beyond U+10FFFF, nothing truncated), or -1.
     */
    static int invalidOffset(byte[] value, int from, int to) {
        for (int i = from; i < to; ) {
            if (value[i] >= 0) {
                i++;
            } else if (sequenceError(value, i, to) == null) {
                int lead = value[i] & 0xFF;
                i += lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
            } else {
                return i;
            }
        }
        return -1;
    }

    /** What is wrong with the UTF-8 sequence of more than one byte at {@code i} (ending by {@code to}), or null if it is valid. */
    private static String sequenceError(byte[] value, int i, int to) {
        int lead = value[i] & 0xFF;
        if (lead < 0xC0) {
            return "continuation byte without a lead byte";
        }
        if (lead >= 0xF8) {
            return "invalid lead byte";
        }
        int length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        for (int k = 1; k < length; k++) {
            if (i + k >= to || (value[i + k] & 0xC0) != 0x80) {
                return "truncated sequence";
            }
        }
        int second = value[i + 1] & 0xFF;
        if (lead < 0xC2 || (lead == 0xE0 && second < 0xA0) || (lead == 0xF0 && second < 0x90)) {
            return "overlong encoding";
        }
        if (lead == 0xED && second >= 0xA0) {
            return "encoded UTF-16 surrogate (CESU-8)";
        }
        if (lead > 0xF4 || (lead == 0xF4 && second >= 0x90)) {
            return "code point beyond U+10FFFF";
        }
        return null;
    }

    /**
     * "'field' is not valid UTF-8: what at byte n of the value (its bytes)", for the invalid sequence at
     * {@code offset} ({@link #invalidOffset}); "value is ..." if {@code where} (the field, quoted) is null.
     */
    static String describeInvalid(String where, byte[] value, int offset) {
        int lead = value[offset] & 0xFF;
        int length = lead < 0xC0 || lead >= 0xF8 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        int shown = 1;
        while (shown < length && offset + shown < value.length) {
            // Up to the byte that breaks the sequence, included.
            if ((value[offset + shown++] & 0xC0) != 0x80) {
                break;
            }
        }
        return (where == null ? "value" : where) + " is not valid UTF-8: " + sequenceError(value, offset, value.length) + " at byte " + offset
                + " of the value (" + hex(value, offset, shown) + ")";
    }

    /** {@code count} bytes from {@code from}, as messages show them: "0xED 0xA0 0x80". */
    static String hex(byte[] bytes, int from, int count) {
        StringBuilder hex = new StringBuilder();
        for (int k = from; k < from + count; k++) {
            hex.append(k > from ? " " : "").append(String.format("0x%02X", bytes[k] & 0xFF));
        }
        return hex.toString();
    }
}
