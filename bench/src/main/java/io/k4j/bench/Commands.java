package io.k4j.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs host commands and reads process facts from /proc for the node benchmarks. Stateless and thread-safe. */
final class Commands {
    private Commands() {}

    /** The command's exit code and combined output. */
    record Outcome(int exitCode, String output) {}

    /** Runs {@code command} with {@code input} on its standard input (null for none); fails on a non-zero exit. */
    /** The executable {@code name} on the {@code PATH}, if installed. */
    static Optional<Path> onPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String directory : path.split(":")) {
            Path candidate = Path.of(directory.isEmpty() ? "." : directory, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    static String run(List<String> command, String input) throws IOException, InterruptedException {
        Outcome outcome = attempt(command, input);
        if (outcome.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + outcome.exitCode() + "): " + outcome.output().strip());
        }
        return outcome.output();
    }

    static Outcome attempt(List<String> command, String input) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream stdin = process.getOutputStream()) {
            if (input != null) {
                stdin.write(input.getBytes(StandardCharsets.UTF_8));
            }
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 120 s");
        }
        return new Outcome(process.exitValue(), output);
    }

    /** A process's resident set size in bytes, or 0 when it is gone. */
    static long residentSetBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The machine's 1-minute load average, as {@code uptime} shows it. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "unknown";
        }
    }

    static void log(String message) {
        System.err.println("bench: " + message);
    }
}
