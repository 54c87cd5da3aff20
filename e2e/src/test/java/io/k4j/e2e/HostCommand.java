package io.k4j.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a command on the test's host (ip, iptables, …), for tests that build or inspect host networking. */
final class HostCommand {
    private HostCommand() {}

    /** Runs {@code command} and returns its output (standard error included); fails unless it exits 0 within 60 s. */
    static String run(String... command) throws IOException, InterruptedException {
        return runWithInput("", List.of(command));
    }

    /** {@link #run}, with {@code input} on the command's standard input. */
    static String runWithInput(String input, List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (var stdin = process.getOutputStream()) {
            stdin.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}
