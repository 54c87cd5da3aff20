package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Optional;

/**
 * One container instance of a pod as the runtime reports it.
 *
 * @param image the image the container was created from, as the pod named it after normalization by the runtime
 * @param imageRef the image's digest reference on the node (for {@code imageID})
 * @param hash the hash of the container spec it was created from ({@link ContainerHashes})
 * @param restartCount the restart count the kubelet gave this instance when it created it
 * @param startedAt when it started, empty if it never did
 * @param finishedAt when it exited, empty while created or running
 */
public record ContainerRuntimeStatus(
        String id,
        String name,
        String podSandboxId,
        State state,
        Instant createdAt,
        Optional<Instant> startedAt,
        Optional<Instant> finishedAt,
        int exitCode,
        String reason,
        String message,
        String image,
        String imageRef,
        String hash,
        int restartCount,
        boolean init) {
    /** The CRI container states. */
    public enum State {
        CREATED,
        RUNNING,
        EXITED,
        UNKNOWN
    }

    public ContainerRuntimeStatus {
        requireNonNull(id, "id is null");
        requireNonNull(name, "name is null");
        requireNonNull(podSandboxId, "podSandboxId is null");
        requireNonNull(state, "state is null");
        requireNonNull(createdAt, "createdAt is null");
        requireNonNull(startedAt, "startedAt is null");
        requireNonNull(finishedAt, "finishedAt is null");
        requireNonNull(reason, "reason is null");
        requireNonNull(message, "message is null");
        requireNonNull(image, "image is null");
        requireNonNull(imageRef, "imageRef is null");
        requireNonNull(hash, "hash is null");
    }

    public boolean running() {
        return state == State.RUNNING;
    }

    public boolean exited() {
        return state == State.EXITED;
    }

    /** The {@code containerID} upstream shows: {@code containerd://<id>}. */
    public String containerId() {
        return "containerd://" + id;
    }
}
