package io.impressiondedup.local;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Directories no process can create a file in, for as long as this is open: a storage outage for
 * writes, while what is already there stays readable. How depends on who runs the test, since root
 * ignores permissions: as another user, the directories lose their write permission ({@code chmod
 * a-w}); as root, they get the immutable attribute ({@code chattr +i}, which binds root too, on
 * ext4, xfs, btrfs). Either way a probe file must then fail to be created, or {@link #of} throws:
 * a test that believes it blocked writes when it did not would prove nothing.
 */
final class UnwritableDirectories implements AutoCloseable {

    private static final Set<PosixFilePermission> READ_ONLY = PosixFilePermissions.fromString("r-xr-xr-x");

    private final List<Path> directories;
    private final List<Set<PosixFilePermission>> permissions = new ArrayList<>();
    private final boolean immutable;
    /** How the writes were blocked, for messages. */
    final String how;

    private UnwritableDirectories(List<Path> directories, boolean root) throws IOException {
        this.directories = directories;
        this.immutable = root;
        this.how = root ? "chattr +i (running as root)" : "chmod a-w";
        for (Path dir : directories) {
            permissions.add(Files.getPosixFilePermissions(dir));
        }
    }

    /** Blocks file creation in each of {@code directories} (not in their subdirectories: list those too). */
    static UnwritableDirectories of(Path... directories) throws IOException {
        boolean root = uid() == 0;
        UnwritableDirectories blocked = new UnwritableDirectories(List.of(directories), root);
        try {
            for (Path dir : directories) {
                if (root) {
                    run("chattr", "+i", dir.toString());
                } else {
                    Files.setPosixFilePermissions(dir, READ_ONLY);
                }
                probeFails(dir, blocked.how);
            }
        } catch (IOException | RuntimeException | Error e) {
            blocked.close();
            throw e;
        }
        return blocked;
    }

    /**
     * Lifts the immutable attribute from everything under {@code root}: what a test killed mid-outage
     * would leave behind, and what would make its directory undeletable. A no-op when not root.
     */
    static void releaseLeftovers(Path root) throws IOException {
        if (Files.isDirectory(root) && uid() == 0) {
            try {
                run("chattr", "-R", "-i", root.toString());
            } catch (IOException ignored) {
                // nothing was immutable, or chattr is missing: then nothing of ours is either
            }
        }
    }

    /** Makes the directories writable again, as they were. */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (int i = 0; i < directories.size(); i++) {
            try {
                if (immutable) {
                    run("chattr", "-i", directories.get(i).toString());
                } else if (i < permissions.size()) {
                    Files.setPosixFilePermissions(directories.get(i), permissions.get(i));
                }
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static void probeFails(Path dir, String how) throws IOException {
        Path probe = dir.resolve("write-probe");
        try {
            Files.createFile(probe);
        } catch (AccessDeniedException expected) {
            return;
        } catch (FileSystemException e) {
            if (String.valueOf(e.getReason()).contains("not permitted")) {
                return;
            }
            throw e;
        }
        Files.delete(probe);
        throw new IllegalStateException("Could not make " + dir + " unwritable with " + how + ": a file could still be created in it");
    }

    private static long uid() {
        try {
            return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return -1;
        }
    }

    private static void run(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", command) + " interrupted", e);
        }
    }
}
