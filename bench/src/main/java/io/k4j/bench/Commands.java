package io.k4j.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs host commands and reads process facts from /proc for the node benchmarks. Stateless and thread-safe. */
final class Commands {
    private static final Pattern TIMES = Pattern.compile("(\\d+)m([\\d.]+)s\\s+(\\d+)m([\\d.]+)s");

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

    /**
     * {@code command} run through bash, which then prints on stderr (its {@code times}) the CPU its children used: a
     * load generator's own cost, read back with {@link #childCpu}.
     */
    static List<String> withChildCpu(List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of("bash", "-c", "\"$0\" \"$@\"; status=$?; times >&2; exit $status"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** The children's line of bash's {@code times} (the second line) in {@code output}: user plus system time. */
    static Duration childCpu(String output) {
        Matcher matcher = TIMES.matcher(output);
        Duration last = Duration.ZERO;
        while (matcher.find()) {
            double seconds = Long.parseLong(matcher.group(1)) * 60 + Double.parseDouble(matcher.group(2))
                    + Long.parseLong(matcher.group(3)) * 60 + Double.parseDouble(matcher.group(4));
            last = Duration.ofNanos((long) (seconds * 1e9));
        }
        return last;
    }

    static String run(List<String> command, String input) throws IOException, InterruptedException {
        Outcome outcome = attempt(command, input);
        if (outcome.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " failed (exit " + outcome.exitCode() + "): " + outcome.output().strip());
        }
        return outcome.output();
    }

    /** Runs a {@code jcmd} diagnostic command of this JDK against the JVM {@code pid}; its output. */
    static String jcmd(long pid, String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
        command.addAll(List.of(arguments));
        return run(command, null);
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
