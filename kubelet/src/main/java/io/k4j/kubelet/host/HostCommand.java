package io.k4j.kubelet.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short command on the host to its end and hands back its exit status and output. */
public final class HostCommand {
    /** A finished command: its exit status and its output (standard error included), trimmed. */
    public record Result(int exitCode, String output) {
        /** The failure of {@code command} with this result, in one line: the command, the status, what it said. */
        public IOException failure(List<String> command) {
            return new IOException(String.join(" ", command) + " failed: exit status " + exitCode
                    + (output.isEmpty() ? "" : ": " + output));
        }
    }

    private HostCommand() {}

    /**
     * Runs {@code command}, killing it after {@code timeout}.
     *
     * @throws IOException when it cannot start, times out, or the thread is interrupted (the flag stays set)
     */
    public static Result run(List<String> command, Duration timeout) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " timed out");
            }
            return new Result(process.exitValue(), output);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted running " + String.join(" ", command), e);
        }
    }
}
