package io.k4j.kubelet.cri;

import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.ImageFsInfoResponse;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;

import java.util.List;
import java.util.Optional;

/**
 * The CRI image service, as upstream's {@code ImageService} gRPC service. Every method throws {@link CriException}
 * when the runtime answers with an error or does not answer within the call's deadline. Implementations are
 * thread-safe.
 */
public interface ImageService {
    /** The images matching the filter (an empty filter matches all). */
    List<Image> listImages(ImageFilter filter);

    /** The image if the runtime has it, empty otherwise. */
    Optional<Image> imageStatus(ImageSpec image);

    /**
     * Pulls an image and returns its reference on the node (the image id, {@code sha256:…}).
     *
     * @param auth registry credentials, or {@link AuthConfig#getDefaultInstance()} for an anonymous pull
     * @param sandboxConfig the sandbox the image is pulled for, or {@link PodSandboxConfig#getDefaultInstance()}
     */
    String pullImage(ImageSpec image, AuthConfig auth, PodSandboxConfig sandboxConfig);

    /** Removes an image; idempotent. */
    void removeImage(ImageSpec image);

    /** How much space images use on the image filesystem(s). */
    ImageFsInfoResponse imageFsInfo();
}
