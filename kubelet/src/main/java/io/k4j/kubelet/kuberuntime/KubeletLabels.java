package io.k4j.kubelet.kuberuntime;

/**
 * The labels and annotations upstream's kubelet puts on sandboxes and containers. They are the only link between a
 * runtime object and its pod, which is what lets a restarted kubelet adopt what runs. Stateless.
 */
public final class KubeletLabels {
    public static final String POD_NAME = "io.kubernetes.pod.name";
    public static final String POD_NAMESPACE = "io.kubernetes.pod.namespace";
    public static final String POD_UID = "io.kubernetes.pod.uid";
    public static final String CONTAINER_NAME = "io.kubernetes.container.name";
    /** Sandbox label upstream sets to {@code podsandbox}; containers carry {@code container} under the runtime's key. */
    public static final String CONTAINER_TYPE = "io.cri-containerd.kind";

    public static final String CONTAINER_HASH = "io.kubernetes.container.hash";
    public static final String CONTAINER_RESTART_COUNT = "io.kubernetes.container.restartCount";
    public static final String TERMINATION_MESSAGE_PATH = "io.kubernetes.container.terminationMessagePath";
    public static final String TERMINATION_MESSAGE_POLICY = "io.kubernetes.container.terminationMessagePolicy";
    public static final String POD_TERMINATION_GRACE_PERIOD = "io.kubernetes.pod.terminationGracePeriod";
    public static final String CONTAINER_PORTS = "io.kubernetes.container.ports";
    /** Whether the container is an init container (k4j's own annotation; upstream finds it from the pod spec). */
    public static final String CONTAINER_IS_INIT = "io.k4j.container.init";

    public static final String CONFIG_SOURCE = "kubernetes.io/config.source";
    public static final String CONFIG_SEEN = "kubernetes.io/config.seen";

    private KubeletLabels() {}
}
