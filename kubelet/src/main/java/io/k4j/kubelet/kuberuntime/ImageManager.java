package io.k4j.kubelet.kuberuntime;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.v1.AuthConfig;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageSpec;
import io.k4j.kubelet.cri.v1.PodSandboxConfig;
import io.k4j.kubelet.events.ContainerReferences;
import io.k4j.kubelet.podobjects.PodObjectSource;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Makes a container's image present as upstream's image manager: honours {@code imagePullPolicy} (Always,
 * IfNotPresent, Never; defaulted as the apiserver does: Always for {@code :latest} or no tag), pulls with the
 * credentials of the pod's imagePullSecrets, and backs off failed pulls per pod and image as upstream (10 s doubling
 * to 5 min; ErrImagePull with the runtime's error, then ImagePullBackOff repeating it). Thread-safe.
 */
public final class ImageManager {
    /** Upstream's waiting reasons. */
    public static final String ERR_IMAGE_PULL = "ErrImagePull";
    public static final String IMAGE_PULL_BACK_OFF = "ImagePullBackOff";
    public static final String ERR_IMAGE_NEVER_PULL = "ErrImageNeverPull";
    public static final String INVALID_IMAGE_NAME = "InvalidImageName";

    /** The outcome of {@link #ensureImageExists}. */
    public sealed interface Result {
        /** The image is present; {@code imageRef} is its id on the node. */
        record Present(String imageRef) implements Result {
            public Present {
                requireNonNull(imageRef, "imageRef is null");
            }
        }

        /** The image is not there: the container waits with {@code reason} and {@code message}. */
        record Failed(String reason, String message) implements Result {
            public Failed {
                requireNonNull(reason, "reason is null");
                requireNonNull(message, "message is null");
            }
        }
    }

    private final ImageService images;
    private final PodObjectSource objects;
    private final EventRecorder events;
    private final InstantSource clock;
    private final Backoff backoff;
    private final java.util.Map<String, String> lastPullErrors = new java.util.concurrent.ConcurrentHashMap<>();

    public ImageManager(ImageService images, PodObjectSource objects, EventRecorder events, InstantSource clock) {
        this.images = requireNonNull(images, "images is null");
        this.objects = requireNonNull(objects, "objects is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.backoff = Backoff.containerRestarts(clock);
    }

    /**
     * Makes the container's image present, recording upstream's image Events about the container (Pulling, Pulled,
     * Failed, BackOff, ErrImageNeverPull, InspectFailed); the caller records {@code Error: <reason>} for a failure as
     * upstream's runtime manager does.
     */
    public Result ensureImageExists(Pod pod, Container container, PodSandboxConfig sandboxConfig) {
        String image = container.getImage();
        String fieldPath = ContainerReferences.fieldPath(pod, container.getName());
        if (image == null || image.isBlank()) {
            String message = "Failed to apply default image tag \"" + image + "\": couldn't parse image reference \""
                    + image + "\": invalid reference format";
            events.event(pod, fieldPath, EventRecorder.WARNING, "InspectFailed", message);
            return new Result.Failed(INVALID_IMAGE_NAME, message);
        }
        ImageSpec spec = ImageSpec.newBuilder().setImage(image).setUserSpecifiedImage(image).build();
        String policy = pullPolicy(container);
        if (!policy.equals("Always")) {
            Optional<Image> present = status(spec);
            if (present.isPresent()) {
                events.event(pod, fieldPath, EventRecorder.NORMAL, "Pulled",
                        "Container image \"" + image + "\" already present on machine");
                return new Result.Present(present.get().getId());
            }
            if (policy.equals("Never")) {
                String message = "Container image \"" + image + "\" is not present with pull policy of Never";
                events.event(pod, fieldPath, EventRecorder.WARNING, ERR_IMAGE_NEVER_PULL, message);
                return new Result.Failed(ERR_IMAGE_NEVER_PULL, message);
            }
        }
        // Per pod and image, as upstream: another pod of the same image pulls on its own schedule.
        String backoffKey = backoffKey(pod, image);
        if (backoff.isInBackOffSinceUpdate(backoffKey)) {
            String message = "Back-off pulling image \"" + image + "\"";
            events.event(pod, fieldPath, EventRecorder.NORMAL, "BackOff", message);
            String lastError = lastPullErrors.get(backoffKey);
            return new Result.Failed(IMAGE_PULL_BACK_OFF, lastError == null ? message : message + ": " + lastError);
        }
        events.event(pod, fieldPath, EventRecorder.NORMAL, "Pulling", "Pulling image \"" + image + "\"");
        Instant start = clock.instant();
        try {
            String imageRef = pull(pod, spec, sandboxConfig);
            Duration took = Duration.between(start, clock.instant());
            long size = status(ImageSpec.newBuilder().setImage(imageRef).build()).map(Image::getSize).orElse(0L);
            events.event(pod, fieldPath, EventRecorder.NORMAL, "Pulled", "Successfully pulled image \"" + image + "\" in "
                    + goDuration(took) + " (" + goDuration(took) + " including waiting). Image size: "
                    + size + " bytes.");
            backoff.reset(backoffKey);
            lastPullErrors.remove(backoffKey);
            return new Result.Present(imageRef);
        }
        catch (CriException e) {
            backoff.next(backoffKey, clock.instant());
            // The container's waiting message is the runtime's error; the back-off that follows repeats it.
            lastPullErrors.put(backoffKey, ERR_IMAGE_PULL + ": " + e.getMessage());
            events.event(pod, fieldPath, EventRecorder.WARNING, "Failed",
                    "Failed to pull image \"" + image + "\": " + e.getMessage());
            return new Result.Failed(ERR_IMAGE_PULL, e.getMessage());
        }
    }

    /** A duration truncated to milliseconds as Go's {@code time.Duration} prints it: {@code 734ms}, {@code 1.207s}, {@code 1m2.5s}. */
    static String goDuration(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis <= 0 ? "0s" : millis + "ms";
        }
        long hours = millis / 3_600_000;
        long minutes = millis % 3_600_000 / 60_000;
        long wholeSeconds = millis % 60_000 / 1000;
        long fraction = millis % 1000;
        StringBuilder text = new StringBuilder();
        if (hours > 0) {
            text.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            text.append(minutes).append('m');
        }
        text.append(wholeSeconds);
        if (fraction > 0) {
            String digits = String.format(java.util.Locale.ROOT, "%03d", fraction).replaceAll("0+$", "");
            text.append('.').append(digits);
        }
        return text.append('s').toString();
    }

    private static String backoffKey(Pod pod, String image) {
        return pod.getMetadata().getUid() + "/" + image;
    }

    /** When a pod's image pull backoff ends (to requeue the pod), if it is in one. */
    public Optional<Instant> backoffUntil(Pod pod, Container container) {
        String key = backoffKey(pod, container.getImage());
        return backoff.isInBackOffSinceUpdate(key) ? Optional.of(backoff.until(key)) : Optional.empty();
    }

    /** Forgets the pull backoff of a pod that is gone. */
    public void forgetPod(String podUid) {
        backoff.resetPrefix(podUid + "/");
        lastPullErrors.keySet().removeIf(key -> key.startsWith(podUid + "/"));
    }

    private String pull(Pod pod, ImageSpec spec, PodSandboxConfig sandboxConfig) {
        List<AuthConfig> credentials = RegistryCredentials.forImage(spec.getImage(), pullSecrets(pod));
        if (credentials.isEmpty()) {
            return images.pullImage(spec, AuthConfig.getDefaultInstance(), sandboxConfig);
        }
        CriException lastError = null;
        for (AuthConfig credential : credentials) {
            try {
                return images.pullImage(spec, credential, sandboxConfig);
            }
            catch (CriException e) {
                lastError = e;
            }
        }
        throw lastError;
    }

    private List<Secret> pullSecrets(Pod pod) {
        List<Secret> secrets = new ArrayList<>();
        List<LocalObjectReference> references = pod.getSpec().getImagePullSecrets();
        if (references == null) {
            return secrets;
        }
        for (LocalObjectReference reference : references) {
            if (reference == null || reference.getName() == null) {
                continue;
            }
            try {
                objects.secret(pod.getMetadata().getNamespace(), reference.getName()).ifPresent(secrets::add);
            }
            catch (IOException e) {
                // Upstream pulls anonymously with the secrets it could read; a missing secret is not an error here.
            }
        }
        return secrets;
    }

    private Optional<Image> status(ImageSpec spec) {
        try {
            return images.imageStatus(spec);
        }
        catch (CriException e) {
            return Optional.empty();
        }
    }

    /** The container's pull policy, defaulted as the apiserver does if it is unset. */
    static String pullPolicy(Container container) {
        if (container.getImagePullPolicy() != null && !container.getImagePullPolicy().isEmpty()) {
            return container.getImagePullPolicy();
        }
        String image = container.getImage();
        String lastComponent = image.substring(image.lastIndexOf('/') + 1);
        if (image.contains("@")) {
            return "IfNotPresent";
        }
        return !lastComponent.contains(":") || lastComponent.endsWith(":latest") ? "Always" : "IfNotPresent";
    }

}
