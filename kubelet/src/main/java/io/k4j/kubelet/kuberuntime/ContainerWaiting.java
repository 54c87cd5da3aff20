package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

/** Why a container is not running, as its {@code state.waiting} shows: e.g. {@code ErrImagePull} and the error. */
public record ContainerWaiting(String reason, String message) {
    public ContainerWaiting {
        requireNonNull(reason, "reason is null");
        requireNonNull(message, "message is null");
    }
}
