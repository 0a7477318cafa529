package io.impressiondedup.local;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the tests find the repository's scripts and the job module's jar: found from the location of
 * these test classes ({@code local/target/test-classes}), so whatever directory the JVM runs in.
 */
final class Repository {

    private Repository() {}

    /** The repository's root: the nearest directory above the test classes that holds {@code deploy/local/cluster.sh}. */
    static Path root() {
        for (Path dir = testClasses(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("deploy/local/cluster.sh")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("No repository root (a directory with deploy/local/cluster.sh) above " + testClasses());
    }

    /** The product: the job module's shaded jar, {@code job/target/dedup-job.jar}. */
    static Path jobJar() {
        return root().resolve("job/target/dedup-job.jar");
    }

    /** The state tools: the tools module's shaded jar, {@code tools/target/dedup-tools.jar}. */
    static Path toolsJar() {
        return root().resolve("tools/target/dedup-tools.jar");
    }

    /** This module's build directory ({@code local/target}). */
    static Path buildDirectory() {
        return testClasses().getParent();
    }

    private static Path testClasses() {
        try {
            return Path.of(Repository.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
