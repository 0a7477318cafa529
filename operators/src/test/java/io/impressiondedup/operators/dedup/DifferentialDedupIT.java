package io.impressiondedup.operators.dedup;

/**
 * {@link DifferentialDedupTest} at its full size, in {@code mvn verify}: failsafe's JVM has {@code test.size=full}
 * ({@link TestSize}), so every seed of every variant runs here, while {@code mvn test} runs the quick sample.
 */
class DifferentialDedupIT extends DifferentialDedupTest {}
