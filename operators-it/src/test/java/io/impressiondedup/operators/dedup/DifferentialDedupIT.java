package io.impressiondedup.operators.dedup;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@link DifferentialDedupTest} at its full size, in {@code mvn verify}, without what that run has already done: the
 * operators module's test phase runs {@link DifferentialDedupTest} at the quick size (surefire), so this class runs the
 * cases of the full size that the quick size lacks, from that module's test jar. Together, {@code mvn verify} runs
 * every case of the full size exactly once. It lives in a module of its own so that the modules built on the operator
 * start without waiting for its 15-20 s. The sources below hide the superclass's of the same name, which JUnit then
 * does not call. Its cases are independent (each its own harnesses, stream and reference), so they run two at a time:
 * this class runs alone in its JVM.
 */
@Execution(ExecutionMode.CONCURRENT)
class DifferentialDedupIT extends DifferentialDedupTest {

    static Stream<Arguments> runs() {
        return beyondQuick(DifferentialDedupTest::runsOfSize);
    }

    static Stream<Arguments> restores() {
        return beyondQuick(DifferentialDedupTest::restoresOfSize);
    }

    static Stream<Arguments> formatSwitches() {
        return beyondQuick(DifferentialDedupTest::formatSwitchesOfSize);
    }

    static Stream<Arguments> reshapeChains() {
        return beyondQuick(DifferentialDedupTest::reshapeChainsOfSize);
    }

    static Stream<Arguments> failures() {
        return beyondQuick(DifferentialDedupTest::failuresOfSize);
    }

    /** The full size's cases that the quick size does not hold. */
    private static Stream<Arguments> beyondQuick(Function<TestSize, Stream<Arguments>> ofSize) {
        List<List<Object>> quick = ofSize.apply(TestSize.QUICK).map(run -> List.of(run.get())).toList();
        return ofSize.apply(TestSize.FULL).filter(run -> !quick.contains(List.of(run.get())));
    }
}
