package io.k4j.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a command on the test's host (ip, iptables, …), for tests that build or inspect host networking. */
final class HostCommand {
    private HostCommand() {}

    /** Runs {@code command} and returns its output (standard error included); fails unless it exits 0 within 30 s. */
    static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
        return output;
    }
}
