package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.ExecSyncResponse;
import io.k4j.kubelet.prober.ContainerCommandRunner;
import io.k4j.kubelet.prober.ExecResult;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/** Exec probes' and exec hooks' commands through CRI ExecSync. Thread-safe. */
public final class CriCommandRunner implements ContainerCommandRunner {
    private final RuntimeService runtime;

    public CriCommandRunner(RuntimeService runtime) {
        this.runtime = requireNonNull(runtime, "runtime is null");
    }

    @Override
    public ExecResult execSync(String containerId, List<String> command, Duration timeout)
            throws IOException, TimeoutException {
        try {
            ExecSyncResponse response = runtime.execSync(containerId, command, timeout);
            return new ExecResult(response.getExitCode(), response.getStdout().toByteArray(),
                    response.getStderr().toByteArray());
        }
        catch (CriException e) {
            if (e.code() == CriException.Code.DEADLINE_EXCEEDED) {
                throw new TimeoutException("command " + command + " timed out after " + timeout.toSeconds() + "s");
            }
            throw new IOException(e.getMessage(), e);
        }
    }
}
