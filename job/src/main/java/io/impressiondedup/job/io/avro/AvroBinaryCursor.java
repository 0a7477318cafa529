package io.impressiondedup.job.io.avro;

/**
 * Reads Avro's binary encoding from a byte array, within {@code [pos, end)}, and skips values by their writer
 * shape. Every length, count and index is checked against what the record can hold before it is used, so bad
 * input costs at most the record's own bytes and a bounded depth of recursion, never an allocation or a loop
 * of the size it declares:
 *
 * <ul>
 *   <li>a string or bytes length must fit in the bytes left;
 *   <li>an array or map block may not count more items than there are bytes left (an item of a non-empty type
 *       takes at least a byte; an array of nulls longer than its record is refused as hostile);
 *   <li>a block of zero-size items ({@link AvroValueShape#zeroSize}: nulls, empty records) is skipped whole, in
 *       one step, not item by item: otherwise a 64 KiB value of 3-byte block headers, each counting as many nulls
 *       as there are bytes left, would cost ~7x10^8 steps. So the work of skipping is at most the record's bytes
 *       times a factor of the schema ({@link #steps}), whatever the counts say;
 *   <li>a union index must name a branch, an enum index a symbol;
 *   <li>a varint is at most 10 bytes (5 for an int) and must fit its type;
 *   <li>nesting (records, unions, arrays, maps within each other) stops at {@link #MAX_DEPTH}: a recursive schema
 *       would otherwise let a record of nested unions exhaust the stack.
 * </ul>
 *
 * Not thread-safe; one per {@link AvroImpressionFields}.
 */
final class AvroBinaryCursor {

    /** Nesting deeper than this is refused: Jackson's limit for the JSON input is 64 too. */
    static final int MAX_DEPTH = 64;

    private byte[] buf;
    private int pos;
    private int end;
    /** Values and blocks skipped since {@link #reset}: the work the record cost, for the test of its bound. */
    private long steps;

    void reset(byte[] value, int from, int to) {
        buf = value;
        pos = from;
        end = to;
        steps = 0;
    }

    long steps() {
        return steps;
    }

    int position() {
        return pos;
    }

    int remaining() {
        return end - pos;
    }

    byte[] buffer() {
        return buf;
    }

    /** A zigzag varint of up to 10 bytes. */
    long readLong() throws MalformedAvroException {
        long raw = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (pos >= end) {
                throw truncated("a long");
            }
            int b = buf[pos++] & 0xFF;
            raw |= (long) (b & 0x7F) << shift;
            if (b < 0x80) {
                if (shift == 63 && b > 1) {
                    throw new MalformedAvroException("a long's varint exceeds 64 bits at byte " + (pos - 1));
                }
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new MalformedAvroException("a varint longer than 10 bytes at byte " + (pos - 10));
    }

    /** A zigzag varint of up to 5 bytes whose value fits an int, as Avro's writers write an int. */
    int readInt() throws MalformedAvroException {
        int start = pos;
        long value = readLong();
        if (pos - start > 5 || value != (int) value) {
            throw new MalformedAvroException("an int's varint exceeds 32 bits at byte " + start);
        }
        return (int) value;
    }

    /** A string's or bytes' length, which must fit in the bytes left. */
    int readLength(String what) throws MalformedAvroException {
        int start = pos;
        long length = readLong();
        if (length < 0 || length > end - pos) {
            throw new MalformedAvroException(what + " length " + length + " at byte " + start + " exceeds the " + (end - pos)
                    + " bytes left in the record");
        }
        return (int) length;
    }

    /** A union's branch index, or an enum's symbol index: in {@code [0, count)}. */
    int readIndex(int count, String what) throws MalformedAvroException {
        int start = pos;
        int index = readInt();
        if (index < 0 || index >= count) {
            throw new MalformedAvroException(what + " index " + index + " at byte " + start + " is out of range [0, " + count + ")");
        }
        return index;
    }

    void skipBytes(long count) throws MalformedAvroException {
        if (count > end - pos) {
            throw truncated(count + " bytes");
        }
        pos += (int) count;
    }

    /** Skips one value of {@code shape}, nested {@code depth} deep. */
    void skip(AvroValueShape shape, int depth) throws MalformedAvroException {
        steps++;
        if (shape.zeroSize) {
            return;
        }
        switch (shape.type) {
            case NULL:
                return;
            case BOOLEAN:
                skipBytes(1);
                return;
            case INT:
                readInt();
                return;
            case LONG:
                readLong();
                return;
            case FLOAT:
                skipBytes(4);
                return;
            case DOUBLE:
                skipBytes(8);
                return;
            case STRING:
                skipBytes(readLength("a string"));
                return;
            case BYTES:
                skipBytes(readLength("a bytes"));
                return;
            case FIXED:
                skipBytes(shape.fixedSize);
                return;
            case ENUM:
                readIndex(shape.symbols.length, "an enum symbol");
                return;
            case UNION:
                checkDepth(depth);
                skip(shape.children[readIndex(shape.children.length, "a union branch")], depth + 1);
                return;
            case RECORD:
                checkDepth(depth);
                for (AvroValueShape field : shape.children) {
                    skip(field, depth + 1);
                }
                return;
            case ARRAY:
                checkDepth(depth);
                skipBlocks(shape.children[0], null, depth + 1);
                return;
            case MAP:
                checkDepth(depth);
                skipBlocks(shape.children[0], "a map key", depth + 1);
                return;
            default:
                throw new MalformedAvroException("cannot skip " + shape.describe());
        }
    }

    /**
     * An array's or map's blocks: a count, then that many items (each a key string first, for a map), until a
     * count of 0. A negative count is followed by the block's size in bytes, which lets it be skipped whole.
     */
    private void skipBlocks(AvroValueShape item, String key, int depth) throws MalformedAvroException {
        while (true) {
            steps++;
            int start = pos;
            long count = readLong();
            if (count == 0) {
                return;
            }
            if (count < 0) {
                long size = readLong();
                if (count == Long.MIN_VALUE || size < 0 || size > end - pos || -count > end - pos) {
                    throw new MalformedAvroException("a block of " + (count == Long.MIN_VALUE ? "2^63" : -count) + " items in " + size
                            + " bytes at byte " + start + " does not fit the " + (end - pos) + " bytes left in the record");
                }
                skipBytes(size);
                continue;
            }
            if (count > end - pos) {
                throw new MalformedAvroException("a block of " + count + " items at byte " + start + " exceeds the " + (end - pos)
                        + " bytes left in the record");
            }
            if (item.zeroSize && key == null) {
                continue;
            }
            for (long i = 0; i < count; i++) {
                if (key != null) {
                    skipBytes(readLength(key));
                }
                skip(item, depth);
            }
        }
    }

    void checkDepth(int depth) throws MalformedAvroException {
        if (depth >= MAX_DEPTH) {
            throw new MalformedAvroException("values nested deeper than " + MAX_DEPTH + " at byte " + pos);
        }
    }

    private MalformedAvroException truncated(String what) {
        return new MalformedAvroException("truncated: " + what + " at byte " + pos + " runs past the end of the record");
    }
}
