/**
 * k4j's own containerd: {@link io.k4j.kubelet.containerd.ContainerdProcess} writes its configuration under the data
 * directory, starts it in its own session, waits until CRI answers, restarts it when it dies and adopts the one a
 * previous k4j left running, so that containers outlive k4j itself.
 */
package io.k4j.kubelet.containerd;
