package io.impressiondedup.bench.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/** The machine a report was measured on, as the report states it. */
record Machine(String cpuModel, int cores, long memoryBytes, String javaVersion, String os) {

    static Machine describe() {
        return new Machine(readCpuModel(), Runtime.getRuntime().availableProcessors(), readMemoryBytes(),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
    }

    String summary() {
        return String.format(Locale.ROOT, "%s, %d cores, %.1f GiB RAM, %s, %s", cpuModel, cores, memoryBytes / (1024.0 * 1024 * 1024),
                javaVersion, os);
    }

    private static String readCpuModel() {
        return procLine(Path.of("/proc/cpuinfo"), "model name").orElse(System.getProperty("os.arch"));
    }

    /** MemTotal from /proc/meminfo, in bytes; 0 where there is none. */
    private static long readMemoryBytes() {
        return procLine(Path.of("/proc/meminfo"), "MemTotal")
                .map(v -> Long.parseLong(v.replace("kB", "").trim()) * 1024)
                .orElse(0L);
    }

    private static Optional<String> procLine(Path file, String key) {
        try {
            return Files.readAllLines(file).stream()
                    .filter(l -> l.startsWith(key))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst();
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }
}
