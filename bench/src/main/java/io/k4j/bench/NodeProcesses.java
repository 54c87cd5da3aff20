package io.k4j.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The processes of a real node's container runtime, found by their command lines naming the node's data directory:
 * its containerd and the containerd shims serving it.
 */
record NodeProcesses(List<Long> containerd, List<Long> shims) {
    /** The runtime's processes now, for the node whose data lives under {@code nodeDirectory}. */
    static NodeProcesses of(Path nodeDirectory) {
        String directory = nodeDirectory.toString();
        List<Long> containerd = new ArrayList<>();
        List<Long> shims = new ArrayList<>();
        for (ProcessHandle process : ProcessHandle.allProcesses().toList()) {
            String commandLine = process.info().commandLine().orElse("");
            if (!commandLine.contains(directory)) {
                continue;
            }
            if (commandLine.contains("containerd-shim")) {
                shims.add(process.pid());
            } else if (process.info().command().orElse("").endsWith("/containerd")) {
                containerd.add(process.pid());
            }
        }
        return new NodeProcesses(List.copyOf(containerd), List.copyOf(shims));
    }
}
