package io.impressiondedup.job.io.parsing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The fast path of {@link JsonImpressionParser}: one pass over a value's bytes that recognises the common
 * shape of an impression, one flat JSON object whose names and string values are printable ASCII
 * without escapes and whose other values are numbers, {@code true}, {@code false} or {@code null}, and
 * locates the configured top-level fields in it (the key fields, then the event time; used only when every
 * configured field is a top-level name: a record read by JSON Pointers into objects goes to Jackson). Jackson's tokenizer costs several times more per record
 * (number and string decoding into buffers, its symbol table, encoding detection), and the source
 * thread spends most of its time there (bench/README.md, "Parsing", has the figures).
 *
 * <p>{@link #scan} either <b>accepts</b>, promising that Jackson (as {@link JsonImpressionParser}
 * configures it) reads the value without error as one object, with no top-level name twice and
 * nothing after it, or it <b>bails out</b>, and the Jackson path reads the value as if this class did
 * not exist. It bails on anything it does not fully check: a byte below 0x20 (outside the four JSON
 * white-space bytes) or above 0x7E anywhere, a backslash, a nested object or array, more than
 * {@link #MAX_FIELDS} fields, a name longer than {@link #MAX_NAME_BYTES}, a number longer than
 * {@link #MAX_NUMBER_BYTES}, a value longer than {@link #MAX_VALUE_BYTES}. So it never decides a dead letter itself: every one keeps the Jackson
 * path's reason and message. Its number grammar is Jackson's default, strict JSON: no leading zeros
 * ({@code 01}, {@code -01}), no {@code +}, no {@code 1.}, {@code .5}, {@code 1e}, no NaN or Infinity;
 * {@code -0} is an integer whose text is {@code -0}. A literal ({@code true}, a number) must end at
 * white space, a comma or the closing brace, as in Jackson (which rejects {@code truex} and {@code 1x}).
 *
 * <p>Because every accepted byte is ASCII and unescaped, a string's text is its bytes, and an
 * integer's text (what Jackson's {@code getText} gives) is its bytes too. One instance per parser; not
 * thread-safe.
 */
final class FlatImpressionScanner {

    /** More top-level fields than this: bail out (the pairwise duplicate check is quadratic). */
    static final int MAX_FIELDS = 32;
    /** Longer names bail out: Jackson limits names (50,000 by default), and no impression has long ones. */
    static final int MAX_NAME_BYTES = 256;
    /** Longer numbers bail out: well within Jackson's limit (64, as the parser configures it). */
    static final int MAX_NUMBER_BYTES = 32;

    /** Longer values bail out: Jackson's limits (strings of 20,000,000 characters by default) are then far away. */
    static final int MAX_VALUE_BYTES = 1 << 20;

    /** What a located field's value is. */
    static final byte ABSENT = 0;
    static final byte STRING = 1;
    /** An integer: an optional minus and digits, no fraction or exponent. */
    static final byte INTEGER = 2;
    /** A decimal number, true, false or null. */
    static final byte OTHER = 3;

    /** Eight bytes of a value at once, the first in the lowest byte. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH_BITS = 0x8080808080808080L;

    /** The configured names, as bytes; null if a name has a character no accepted name can have (it never matches). */
    private final byte[][] wanted;

    /** Per configured field (the key fields, then the event time): the kind of its value and its text's bounds (no quotes). */
    final byte[] kind;
    final int[] start;
    final int[] end;

    private final int[] nameStart = new int[MAX_FIELDS];
    private final int[] nameLength = new int[MAX_FIELDS];
    private final int[] nameHash = new int[MAX_FIELDS];

    /** A scanner locating the top-level fields {@code names} (distinct), reported by their index in it. */
    FlatImpressionScanner(String... names) {
        this.wanted = new byte[names.length][];
        for (int t = 0; t < names.length; t++) {
            wanted[t] = asciiOrNull(names[t]);
        }
        this.kind = new byte[names.length];
        this.start = new int[names.length];
        this.end = new int[names.length];
    }

    private static byte[] asciiOrNull(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E || c == '"' || c == '\\') {
                return null;
            }
        }
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether {@code value} is one flat object that Jackson reads without error, no name twice (see the class). */
    boolean scan(byte[] value) {
        Arrays.fill(kind, ABSENT);
        int n = value.length;
        if (n > MAX_VALUE_BYTES) {
            return false;
        }
        int i = skipWhiteSpace(value, 0);
        if (i >= n || value[i] != '{') {
            return false;
        }
        i = skipWhiteSpace(value, i + 1);
        if (i >= n) {
            return false;
        }
        int fields = 0;
        if (value[i] == '}') {
            i++;
        } else {
            while (true) {
                // A name.
                if (value[i] != '"' || fields == MAX_FIELDS) {
                    return false;
                }
                int from = ++i;
                i = plainRun(value, i);
                int length = i - from;
                if (i >= n || value[i] != '"' || length > MAX_NAME_BYTES) {
                    return false;
                }
                // Enough to tell a record's names apart nearly always; equal hashes are compared byte for byte.
                int hash = length == 0 ? 0 : (length * 31 + value[from]) * 31 + value[from + length / 2] * 31 + value[i - 1];
                for (int f = 0; f < fields; f++) {
                    if (nameHash[f] == hash && nameLength[f] == length && sameBytes(value, nameStart[f], from, length)) {
                        return false;
                    }
                }
                nameStart[fields] = from;
                nameLength[fields] = length;
                nameHash[fields] = hash;
                fields++;
                int target = target(value, from, length);
                // The colon.
                i = skipWhiteSpace(value, i + 1);
                if (i >= n || value[i] != ':') {
                    return false;
                }
                i = skipWhiteSpace(value, i + 1);
                if (i >= n) {
                    return false;
                }
                // The value.
                byte b = value[i];
                int valueStart = i;
                byte valueKind;
                if (b == '"') {
                    valueStart = ++i;
                    i = plainRun(value, i);
                    if (i >= n || value[i] != '"') {
                        return false;
                    }
                    if (target >= 0) {
                        start[target] = valueStart;
                        end[target] = i;
                    }
                    i++;
                    valueKind = STRING;
                } else if (b == '-' || (b >= '0' && b <= '9')) {
                    int after = scanNumber(value, i);
                    if (after == 0) {
                        return false;
                    }
                    valueKind = after > 0 ? INTEGER : OTHER;
                    i = Math.abs(after);
                } else if (b == 't') {
                    i = literal(value, i, "true");
                    valueKind = OTHER;
                } else if (b == 'f') {
                    i = literal(value, i, "false");
                    valueKind = OTHER;
                } else if (b == 'n') {
                    i = literal(value, i, "null");
                    valueKind = OTHER;
                } else {
                    return false; // a nested object or array, or not JSON
                }
                if (i < 0) {
                    return false;
                }
                if (target >= 0 && valueKind != STRING) {
                    start[target] = valueStart;
                    end[target] = i;
                }
                if (target >= 0) {
                    kind[target] = valueKind;
                }
                // A comma or the end of the object.
                i = skipWhiteSpace(value, i);
                if (i >= n) {
                    return false;
                }
                if (value[i] == '}') {
                    i++;
                    break;
                }
                if (value[i] != ',') {
                    return false;
                }
                i = skipWhiteSpace(value, i + 1);
                if (i >= n) {
                    return false;
                }
            }
        }
        // Nothing but white space after the object.
        return skipWhiteSpace(value, i) == n;
    }

    /**
     * The offset of the first byte from {@code i} on that is not printable ASCII other than a quote or a
     * backslash (so a string's closing quote, or a byte to bail out on), or the value's length. Eight bytes
     * at a time: per byte, the high bit of {@code (y - 0x01) & ~y} is set if y is zero, of
     * {@code (x - 0x20) & ~x} if x is below 0x20, and of x itself if x is 0x80 or above. Borrows only ever
     * mark bytes after a byte truly marked, so the lowest mark (the first byte) is exact.
     */
    static int plainRun(byte[] value, int i) {
        int n = value.length;
        while (i + 8 <= n) {
            long x = (long) LONGS.get(value, i);
            long quote = x ^ 0x2222222222222222L;
            long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
            long delete = x ^ 0x7F7F7F7F7F7F7F7FL;
            long marks = ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) | ((delete - ONES) & ~delete)
                    | ((x - 0x2020202020202020L) & ~x) | x;
            marks &= HIGH_BITS;
            if (marks != 0) {
                return i + (Long.numberOfTrailingZeros(marks) >>> 3);
            }
            i += 8;
        }
        while (i < n) {
            byte b = value[i];
            if (b < 0x20 || b == '"' || b == '\\' || b == 0x7F) {
                return i;
            }
            i++;
        }
        return n;
    }

    /**
     * Scans a number at {@code i} (a minus or a digit): the offset after it, positive for an integer and
     * negated for a decimal number; 0 if it is not a number Jackson reads, or is too long.
     */
    private static int scanNumber(byte[] value, int i) {
        int n = value.length;
        int from = i;
        if (value[i] == '-') {
            i++;
        }
        if (i >= n) {
            return 0;
        }
        byte b = value[i];
        if (b == '0') {
            i++;
            if (i < n && value[i] >= '0' && value[i] <= '9') {
                return 0; // leading zero
            }
        } else if (b >= '1' && b <= '9') {
            do {
                i++;
            } while (i < n && value[i] >= '0' && value[i] <= '9');
        } else {
            return 0;
        }
        boolean integer = true;
        if (i < n && value[i] == '.') {
            integer = false;
            i = requiredDigits(value, i + 1);
            if (i < 0) {
                return 0;
            }
        }
        if (i < n && (value[i] == 'e' || value[i] == 'E')) {
            integer = false;
            i++;
            if (i < n && (value[i] == '+' || value[i] == '-')) {
                i++;
            }
            i = requiredDigits(value, i);
            if (i < 0) {
                return 0;
            }
        }
        if (i - from > MAX_NUMBER_BYTES || !endsALiteral(value, i)) {
            return 0;
        }
        return integer ? i : -i;
    }

    /**
     * The offset after the digits from {@code i} on, or -1 if there is none: JSON requires at least one digit
     * after a fraction's point and after an exponent's sign ({@code 1.} and {@code 1e} are not numbers).
     */
    private static int requiredDigits(byte[] value, int i) {
        int from = i;
        int n = value.length;
        while (i < n && value[i] >= '0' && value[i] <= '9') {
            i++;
        }
        return i == from ? -1 : i;
    }

    /** The offset after {@code word} at {@code i}, or -1 if it is not there, ending a literal. */
    private static int literal(byte[] value, int i, String word) {
        int length = word.length();
        if (i + length > value.length) {
            return -1;
        }
        for (int k = 0; k < length; k++) {
            if (value[i + k] != word.charAt(k)) {
                return -1;
            }
        }
        return endsALiteral(value, i + length) ? i + length : -1;
    }

    /** Whether a literal may end before {@code i}: at white space, a comma, the closing brace (or the end, which fails later). */
    private static boolean endsALiteral(byte[] value, int i) {
        if (i >= value.length) {
            return true;
        }
        byte b = value[i];
        return b == ',' || b == '}' || b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    private static int skipWhiteSpace(byte[] value, int i) {
        int n = value.length;
        while (i < n) {
            byte b = value[i];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    /** Which configured field (its index in the constructor's names) the name at {@code from} is, or -1. */
    private int target(byte[] value, int from, int length) {
        for (int t = 0; t < wanted.length; t++) {
            byte[] name = wanted[t];
            if (name != null && name.length == length && sameBytes(value, from, name, length)) {
                return t;
            }
        }
        return -1;
    }

    private static boolean sameBytes(byte[] value, int a, int b, int length) {
        for (int k = 0; k < length; k++) {
            if (value[a + k] != value[b + k]) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameBytes(byte[] value, int from, byte[] name, int length) {
        for (int k = 0; k < length; k++) {
            if (value[from + k] != name[k]) {
                return false;
            }
        }
        return true;
    }
}
