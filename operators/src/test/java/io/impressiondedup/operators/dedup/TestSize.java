package io.impressiondedup.operators.dedup;

/**
 * How large a test that has two sizes runs, from the system property {@value #PROPERTY}: {@code quick} (the default) in the
 * developer loop, {@code mvn test}; {@code full} where the whole suite runs, {@code mvn verify}, whose failsafe JVM the
 * parent pom gives {@code test.size=full} (a {@code *IT} subclass runs the same tests there). {@code mvn test
 * -Dtest.size=full} runs the full size in the loop too. A quick size runs fewer cases of a test, each checked exactly as at
 * the full size: never a smaller case with a looser bound.
 */
enum TestSize {
    QUICK,
    FULL;

    static final String PROPERTY = "test.size";

    static TestSize current() {
        String value = System.getProperty(PROPERTY, "quick");
        return switch (value) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + " must be quick or full, but was '" + value + "'");
        };
    }

    /** {@code quick} or {@code full}, whichever this run's size is. */
    int pick(int quick, int full) {
        return this == FULL ? full : quick;
    }
}
