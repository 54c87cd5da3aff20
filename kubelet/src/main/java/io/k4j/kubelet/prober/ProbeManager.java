package io.k4j.kubelet.prober;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * Runs the probes of the pods on this node, as upstream's prober manager: one worker per container and probe kind
 * (regular containers and restartable init containers), honouring initialDelaySeconds, periodSeconds,
 * timeoutSeconds, successThreshold and failureThreshold; a startup probe gates the liveness and readiness probes
 * until it succeeds. Failures are recorded as {@code Unhealthy} events ({@code Liveness probe failed: …}); the
 * worker learns through {@link ProbeListener} when a container must be restarted or its readiness changed.
 * Probe workers read each container's current instance from {@link ContainerStates}, so a restarted container's
 * results start over. Thread-safe.
 */
public interface ProbeManager extends AutoCloseable {
    /**
     * Starts the probe workers of a pod admitted to this node. Adding a pod again starts nothing new but gives its
     * workers the newer pod object: once it has a deletionTimestamp, liveness and startup probes stop (reporting
     * success), so that a pod being deleted is not restarted by them, as upstream.
     */
    void addPod(Pod pod);

    /** Stops the pod's probe workers and forgets their results (the pod's containers are stopped, or it is gone). */
    void removePod(String podUid);

    /**
     * The probe-derived status of a container instance: {@code started} and {@code ready} as upstream's
     * {@code UpdatePodStatus} sets them. A container ID with no result yet is not started (if it has a startup
     * probe) and not ready (if it has a readiness probe); the caller reports a container that is not running as
     * neither started nor ready regardless.
     */
    ContainerProbeStatus status(String podUid, String containerName, String containerId);

    /** Stops every worker. */
    @Override
    void close();
}
