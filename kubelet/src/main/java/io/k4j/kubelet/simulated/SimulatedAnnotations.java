package io.k4j.kubelet.simulated;

/** The annotations that steer simulated nodes and their pods. */
public final class SimulatedAnnotations {
    /**
     * On a Node: the simulator runs every node carrying {@code kwok.x-k8s.io/node: fake}, the key and value
     * upstream KWOK's {@code --manage-nodes-with-annotation-selector} documents, so KWOK node manifests work as-is.
     */
    public static final String MANAGED_NODE = "kwok.x-k8s.io/node";
    /** The value of {@link #MANAGED_NODE} that marks a node as simulated. */
    public static final String MANAGED_NODE_VALUE = "fake";
    /**
     * On a Node: {@code "true"} stops its simulated kubelet (no Lease renewals, no status, pods left as they are), as
     * if the machine died; removing it (or any other value) starts it again.
     */
    public static final String STOPPED = "k4j.io/simulated-stopped";
    /**
     * On a Pod: how many seconds (a decimal number) its containers run before they exit. Pods with restartPolicy
     * Never or OnFailure (and so Job pods) end after the node config's {@code podRunSeconds} without it; pods with
     * restartPolicy Always run until deleted unless it is set, in which case their containers exit and restart.
     */
    public static final String RUN_SECONDS = "k4j.io/simulated-run-seconds";
    /** On a Pod: the exit code of its containers when they exit (default 0); non-zero makes the pod fail. */
    public static final String EXIT_CODE = "k4j.io/simulated-exit-code";

    private SimulatedAnnotations() {}
}
