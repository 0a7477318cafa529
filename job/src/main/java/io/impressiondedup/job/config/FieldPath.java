package io.impressiondedup.job.config;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Where a field of an impression is: the text of {@code --request-id-field}, {@code --ad-id-field},
 * {@code --timestamp-field} or one entry of {@code --dedup-key}.
 *
 * <ul>
 *   <li>Without a leading '/': one top-level member name, taken literally ({@code requestId}, also
 *       {@code a/b} or {@code a~b}), so a plain name means the member of that name whatever characters
 *       it holds.
 *   <li>With a leading '/': an RFC 6901 JSON Pointer ({@code /imp/requestId}) whose tokens are object
 *       member names, {@code ~1} standing for '/' and {@code ~0} for '~'. Any other '~', an empty token
 *       ({@code /imp//id}, {@code /}) and the empty pointer are refused: an empty member name is legal JSON
 *       but in a configuration it is nearly always a typo, and it would be silently never found.
 * </ul>
 *
 * Tokens are always member names: a path never steps into an array (a token {@code 0} names the member
 * {@code "0"}). Array indexes would need the fast path to track positions in arrays too; they are left out
 * until a record layout needs them (bench/README.md, "Input formats", has the cost of the formats we read).
 * Two paths are equal if their tokens are: {@code requestId} and {@code /requestId} are one field.
 */
public final class FieldPath implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The option text as given: what messages quote. */
    private final String text;
    /** The member names from the top-level object down to the field; never empty. */
    private final List<String> tokens;

    private FieldPath(String text, List<String> tokens) {
        this.text = text;
        this.tokens = tokens;
    }

    /** The path {@code text} (a top-level name or a pointer, see the class); fails naming the problem. */
    public static FieldPath parse(String text) {
        if (text == null || text.isEmpty()) {
            throw new IllegalArgumentException("a field path must not be empty");
        }
        if (text.charAt(0) != '/') {
            if (text.isBlank()) {
                throw new IllegalArgumentException("a field name must not be blank");
            }
            return new FieldPath(text, List.of(text));
        }
        List<String> tokens = new ArrayList<>();
        StringBuilder token = new StringBuilder();
        for (int i = 1; i <= text.length(); i++) {
            char c = i < text.length() ? text.charAt(i) : '/';
            if (c == '/') {
                if (token.length() == 0) {
                    throw new IllegalArgumentException("the JSON Pointer '" + text + "' has an empty token at character " + (i - 1)
                            + " (a member name must not be empty)");
                }
                tokens.add(token.toString());
                token.setLength(0);
            } else if (c == '~') {
                char next = i + 1 < text.length() ? text.charAt(i + 1) : 0;
                if (next != '0' && next != '1') {
                    throw new IllegalArgumentException("the JSON Pointer '" + text + "' has '~' at character " + i
                            + " not followed by 0 or 1 (write ~0 for '~' and ~1 for '/')");
                }
                token.append(next == '0' ? '~' : '/');
                i++;
            } else {
                token.append(c);
            }
        }
        return new FieldPath(text, Collections.unmodifiableList(tokens));
    }

    /** Whether {@code text} is a valid path (for the options' rules). */
    public static boolean isValid(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The member names from the top-level object down to the field. */
    public List<String> tokens() {
        return tokens;
    }

    /** Whether the field is a member of the top-level object (the fast path reads only those). */
    public boolean isTopLevel() {
        return tokens.size() == 1;
    }

    /**
     * Whether a record could not hold both fields as values: the same path, or one inside the other
     * ({@code /imp} and {@code /imp/id}: the first would have to be an object and a value at once).
     */
    public boolean overlaps(FieldPath other) {
        int common = Math.min(tokens.size(), other.tokens.size());
        return tokens.subList(0, common).equals(other.tokens.subList(0, common));
    }

    /** Member names as a JSON Pointer, each escaped ({@code ~0}, {@code ~1}): how messages name a field inside an object. */
    public static String pointer(List<String> tokens) {
        StringBuilder pointer = new StringBuilder();
        for (String token : tokens) {
            pointer.append('/').append(token.replace("~", "~0").replace("/", "~1"));
        }
        return pointer.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FieldPath && ((FieldPath) o).tokens.equals(tokens);
    }

    @Override
    public int hashCode() {
        return tokens.hashCode();
    }

    /** The path as configured: {@code requestId}, {@code /imp/requestId}. */
    @Override
    public String toString() {
        return text;
    }
}
