package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.AttachRequest;
import io.k4j.kubelet.cri.v1.ExecRequest;
import io.k4j.kubelet.cri.v1.PortForwardRequest;
import java.io.IOException;
import java.net.URI;
import java.util.List;

/**
 * {@link StreamingRuntime} over the CRI {@link RuntimeService}: the runtime prepares each session and names its URL.
 *
 * <p>Thread-safe.
 */
public final class CriStreamingRuntime implements StreamingRuntime {
    private final RuntimeService runtime;

    public CriStreamingRuntime(RuntimeService runtime) {
        this.runtime = requireNonNull(runtime, "runtime is null");
    }

    @Override
    public URI exec(String containerId, List<String> command, boolean tty, boolean stdin, boolean stdout, boolean stderr) throws IOException {
        try {
            return URI.create(runtime.exec(ExecRequest.newBuilder().setContainerId(containerId).addAllCmd(command)
                    .setTty(tty).setStdin(stdin).setStdout(stdout).setStderr(stderr).build()).getUrl());
        } catch (CriException e) {
            throw new IOException("CRI Exec failed: " + e.getMessage(), e);
        }
    }

    @Override
    public URI attach(String containerId, boolean tty, boolean stdin, boolean stdout, boolean stderr) throws IOException {
        try {
            return URI.create(runtime.attach(AttachRequest.newBuilder().setContainerId(containerId)
                    .setTty(tty).setStdin(stdin).setStdout(stdout).setStderr(stderr).build()).getUrl());
        } catch (CriException e) {
            throw new IOException("CRI Attach failed: " + e.getMessage(), e);
        }
    }

    @Override
    public URI portForward(String podSandboxId, List<Integer> ports) throws IOException {
        try {
            return URI.create(runtime.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podSandboxId).addAllPort(ports).build()).getUrl());
        } catch (CriException e) {
            throw new IOException("CRI PortForward failed: " + e.getMessage(), e);
        }
    }
}
