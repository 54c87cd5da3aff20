package io.k4j.kubelet.server;

import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * The container runtime's streaming calls (CRI {@code Exec}, {@code Attach}, {@code PortForward}): each returns the
 * URL of a one-time session on the runtime's streaming server (containerd's listens on 127.0.0.1), which the kubelet
 * server then relays the client's upgraded connection to.
 *
 * <p>Implementations are thread-safe.
 */
public interface StreamingRuntime {
    URI exec(String containerId, List<String> command, boolean tty, boolean stdin, boolean stdout, boolean stderr) throws IOException;

    URI attach(String containerId, boolean tty, boolean stdin, boolean stdout, boolean stderr) throws IOException;

    URI portForward(String podSandboxId, List<Integer> ports) throws IOException;
}
