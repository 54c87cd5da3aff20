package io.k4j.kubelet.lifecycle;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Runs a container's lifecycle hooks as upstream's kubelet: exec (through the
 * {@link io.k4j.kubelet.prober.ContainerCommandRunner}), httpGet (host defaulting to the pod's IP, named ports) and
 * sleep. Thread-safe; each call blocks the calling pod worker until the hook finished.
 */
public interface HookRunner {
    /**
     * Runs the container's postStart hook, if it has one, right after the container started. On failure the hook
     * runner has recorded the {@code FailedPostStartHook} event with upstream's message; the worker must then kill
     * the container (reason {@code FailedPostStartHook}) and report it waiting with reason
     * {@code PostStartHookError}, as upstream.
     *
     * @param containerId the new container's runtime ID
     * @param podIps the pod's IPs (an httpGet hook without a host targets the first)
     * @return the failure message, or empty when there is no hook or it succeeded
     */
    Optional<String> runPostStart(Pod pod, Container container, String containerId, List<String> podIps);

    /**
     * Runs the container's preStop hook, if it has one, before the container is stopped, for at most
     * {@code gracePeriod}; a failure records the {@code FailedPreStopHook} event and does not stop the termination.
     *
     * @return how long the hook took (at most the grace period): the worker subtracts it from the grace period it
     *     gives the runtime's StopContainer, keeping upstream's minimum of 2 seconds
     */
    Duration runPreStop(Pod pod, Container container, String containerId, List<String> podIps, Duration gracePeriod);
}
