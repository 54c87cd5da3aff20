package io.k4j.kubelet.server;

import java.nio.file.Path;

/**
 * Where container logs live, as upstream's kubelet lays them out ({@code /var/log/pods}): one directory per pod, named
 * {@code <namespace>_<pod>_<uid>} (the sandbox's {@code log_directory}), one per container in it, one file per
 * restart ({@code <restartCount>.log}, the container's {@code log_path} relative to the sandbox's directory). The
 * runtime writes them in the CRI log format ({@link CriLogLine}).
 *
 * <p>Stateless and thread-safe.
 */
public final class PodLogPaths {
    /** The directory under the kubelet's root directory. */
    public static final String DIRECTORY = "pods-logs";

    private PodLogPaths() {}

    /** {@code <kubeletRoot>/pods-logs}. */
    public static Path root(Path kubeletRoot) {
        return kubeletRoot.resolve(DIRECTORY);
    }

    /** The sandbox's log directory: {@code <root>/<namespace>_<pod>_<uid>}. */
    public static Path podDirectory(Path logsRoot, String namespace, String podName, String podUid) {
        return logsRoot.resolve(namespace + "_" + podName + "_" + podUid);
    }

    /** A container's log path relative to the pod's directory: {@code <container>/<restartCount>.log}. */
    public static String relativeContainerLog(String containerName, int restartCount) {
        return containerName + "/" + restartCount + ".log";
    }

    /** A container's log file. */
    public static Path containerLog(Path logsRoot, String namespace, String podName, String podUid, String containerName, int restartCount) {
        return podDirectory(logsRoot, namespace, podName, podUid).resolve(relativeContainerLog(containerName, restartCount));
    }
}
