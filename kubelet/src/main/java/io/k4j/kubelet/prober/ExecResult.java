package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/** What a command run in a container produced, as CRI's {@code ExecSyncResponse}. */
public record ExecResult(int exitCode, byte[] stdout, byte[] stderr) {
    public ExecResult {
        requireNonNull(stdout, "stdout is null");
        requireNonNull(stderr, "stderr is null");
        stdout = stdout.clone();
        stderr = stderr.clone();
    }

    @Override
    public byte[] stdout() {
        return stdout.clone();
    }

    @Override
    public byte[] stderr() {
        return stderr.clone();
    }

    /** stdout followed by stderr, as upstream's probe and hook messages show the output. */
    public String combinedOutput() {
        return new String(stdout, StandardCharsets.UTF_8) + new String(stderr, StandardCharsets.UTF_8);
    }
}
