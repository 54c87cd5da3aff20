/**
 * Pod status as the kubelet reports it: {@link io.k4j.kubelet.status.PodStatusGenerator} computes it from what the
 * runtime has (upstream's {@code generateAPIPodStatus} and {@code getPhase}); {@link io.k4j.kubelet.status.StatusManager}
 * writes it through {@code pods/status} only when it changed.
 */
package io.k4j.kubelet.status;
