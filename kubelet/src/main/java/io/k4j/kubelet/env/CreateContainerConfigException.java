package io.k4j.kubelet.env;

/**
 * A container's configuration cannot be generated yet: a missing ConfigMap, Secret or key in its environment, or a
 * subPath that cannot be prepared. The message is upstream's (e.g. {@code configmap "x" not found},
 * {@code couldn't find key k in ConfigMap ns/x}); the worker shows the container as waiting with reason
 * {@link #REASON} and that message, records a {@code Failed} event with the message and retries later.
 */
public final class CreateContainerConfigException extends Exception {
    /** The container's waiting reason for this failure, as upstream. */
    public static final String REASON = "CreateContainerConfigError";

    public CreateContainerConfigException(String message) {
        super(message);
    }

    public CreateContainerConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
