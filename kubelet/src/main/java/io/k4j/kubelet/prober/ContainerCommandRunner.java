package io.k4j.kubelet.prober;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Runs a command in a running container and waits for it, as CRI's {@code ExecSync}; used by exec probes and exec
 * lifecycle hooks. kubelet-core implements it over the runtime service. Implementations are thread-safe.
 */
public interface ContainerCommandRunner {
    /**
     * Runs {@code command} (argv, no shell) in the container.
     *
     * @param timeout how long the command may run; zero means no limit
     * @return the exit code and the captured output, also when the exit code is not zero
     * @throws TimeoutException when the command did not finish within {@code timeout}
     * @throws IOException when the runtime could not run it (container gone, runtime unreachable, executable not
     *     found as reported by the runtime); the message is the runtime's
     */
    ExecResult execSync(String containerId, List<String> command, Duration timeout)
            throws IOException, TimeoutException;
}
