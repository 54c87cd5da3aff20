package io.k4j.kubelet.prober;

/**
 * What the prober tells the pod worker. Called from probe worker threads; implementations must be thread-safe and
 * return quickly (hand the work to the pod worker).
 */
public interface ProbeListener {
    /**
     * A liveness or startup probe reached its failure threshold: the container instance must be killed and restarted
     * according to the pod's restartPolicy, as upstream. The prober has already recorded the {@code Unhealthy}
     * events; the worker records the {@code Killing} event with {@code message}.
     *
     * @param type {@link ProbeType#LIVENESS} or {@link ProbeType#STARTUP}
     * @param message upstream's kill message, e.g. {@code Container c1 failed liveness probe, will be restarted}
     */
    void restartContainer(String podUid, String containerName, String containerId, ProbeType type, String message);

    /**
     * A readiness or startup result of a container instance changed (the container became ready or unready,
     * or started): the status manager should recompute the pod's container statuses and conditions with
     * {@link ProbeManager#status}.
     */
    void probeResultChanged(String podUid, String containerName, String containerId, ProbeType type);
}
