/**
 * The kubelet's runtime manager over CRI, as upstream's {@code kuberuntime}: what a pod looks like in the runtime
 * ({@link io.k4j.kubelet.kuberuntime.PodRuntimeStatus}, found through upstream's labels), what must change
 * ({@link io.k4j.kubelet.kuberuntime.PodActions#compute}), and doing it
 * ({@link io.k4j.kubelet.kuberuntime.KubeRuntimeManager}): sandbox, image pulls, init containers, containers,
 * restarts with CrashLoopBackOff, graceful kills.
 */
package io.k4j.kubelet.kuberuntime;
