package io.k4j.kubelet.server;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What the kubelet server looks up in the kubelet's own state (implemented by the pod lifecycle): the pods bound to
 * this node with their latest status as the kubelet reports it, the CRI log file of a container, and a pod's sandbox.
 * Container ids are the runtime's ids without the {@code containerd://} scheme.
 *
 * <p>Implementations are thread-safe; calls must be cheap (no runtime round trip needed for pods).
 */
public interface PodContainerLocator {
    /** The pods this kubelet runs (as in {@code /pods}). */
    List<Pod> pods();

    /** A pod by namespace and name, with the status the kubelet last computed for it. */
    Optional<Pod> pod(String namespace, String name);

    /**
     * The log file the runtime writes for a container ({@code ContainerStatus.log_path}, normally
     * {@link PodLogPaths#containerLog}); empty when the runtime does not know the container.
     */
    Optional<Path> logPath(String containerId);

    /** The id of the pod's running sandbox, empty when it has none. */
    Optional<String> sandboxId(Pod pod);
}
