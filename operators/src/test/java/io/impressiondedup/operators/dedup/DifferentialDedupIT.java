package io.impressiondedup.operators.dedup;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@link DifferentialDedupTest} at its full size, in {@code mvn verify}, without what that run has already done: its test
 * phase runs {@link DifferentialDedupTest} at the quick size (surefire), so this class runs the cases of the full size
 * that the quick sample lacks, and none of the tests that are the same at both sizes (restores, state format switches,
 * reshape chains, replays after a failure). Together, {@code mvn verify} runs every case of the full size exactly once.
 * The sources below hide the superclass's of the same name, which JUnit then does not call.
 */
class DifferentialDedupIT extends DifferentialDedupTest {

    /** The full size's runs that the quick size does not hold. */
    static Stream<Arguments> runs() {
        List<List<Object>> quick = runsOfSize(TestSize.QUICK).map(run -> List.of(run.get())).toList();
        return runsOfSize(TestSize.FULL).filter(run -> !quick.contains(List.of(run.get())));
    }

    static Stream<Arguments> restores() {
        return Stream.empty();
    }

    static Stream<Arguments> formatSwitches() {
        return Stream.empty();
    }

    static Stream<Arguments> reshapeChains() {
        return Stream.empty();
    }

    static Stream<Arguments> failures() {
        return Stream.empty();
    }
}
