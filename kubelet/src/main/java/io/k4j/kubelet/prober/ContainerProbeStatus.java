package io.k4j.kubelet.prober;

/**
 * The probe-derived fields of a running container's status, as upstream's {@code UpdatePodStatus} computes them.
 *
 * @param started {@code containerStatuses[].started}: true once the startup probe succeeded, or at once when the
 *     container has no startup probe
 * @param ready {@code containerStatuses[].ready}: started, and the readiness probe's last result was success (or the
 *     container has no readiness probe)
 */
public record ContainerProbeStatus(boolean started, boolean ready) {}
