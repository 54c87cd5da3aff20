package io.k4j.kubelet.nodestatus;

import static java.util.Objects.requireNonNull;

/**
 * Whether the container runtime can run pods, as upstream's runtime state check feeds the Ready condition.
 *
 * @param message empty when ready, else upstream's reason text for {@code KubeletNotReady}
 */
public record RuntimeHealth(boolean ready, String message) {
    public static final RuntimeHealth READY = new RuntimeHealth(true, "");

    public RuntimeHealth {
        requireNonNull(message, "message is null");
    }
}
