package io.k4j.kubelet.config;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Upstream's rules for static pods (pods a kubelet runs from its own sources, not from the API) and their mirror pods
 * (the read-only copies it creates in the API so that the cluster sees them). Stateless and thread-safe.
 */
public final class StaticPods {
    /** Where a pod came from: {@code file}, or {@code api} for pods of the API. */
    public static final String CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source";
    /** A static pod's hash (its UID), copied into its mirror pod. */
    public static final String CONFIG_HASH_ANNOTATION = "kubernetes.io/config.hash";
    /** Marks a mirror pod; its value is the hash of the static pod it mirrors. */
    public static final String CONFIG_MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
    /** When the kubelet first saw the pod. */
    public static final String CONFIG_SEEN_ANNOTATION = "kubernetes.io/config.seen";
    public static final String FILE_SOURCE = "file";
    public static final String API_SOURCE = "api";

    private StaticPods() {}

    /** Whether a pod of the API is a mirror pod (the kubelet must not run it). */
    public static boolean isMirrorPod(Pod pod) {
        return annotation(pod, CONFIG_MIRROR_ANNOTATION).isPresent();
    }

    /** Whether a pod came from one of the kubelet's own sources rather than the API. */
    public static boolean isStaticPod(Pod pod) {
        return annotation(pod, CONFIG_SOURCE_ANNOTATION).filter(source -> !source.equals(API_SOURCE)).isPresent();
    }

    /** {@code namespace/name}: what a static pod and its mirror pod share. */
    public static String fullName(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }

    /**
     * Whether {@code mirror} mirrors this version of {@code staticPod}: same name and namespace, and its mirror
     * annotation holds the static pod's hash. A mirror pod being deleted mirrors nothing any more.
     */
    public static boolean isMirrorOf(Pod mirror, Pod staticPod) {
        if (mirror.getMetadata().getDeletionTimestamp() != null || !fullName(mirror).equals(fullName(staticPod))) {
            return false;
        }
        Optional<String> mirrored = annotation(mirror, CONFIG_MIRROR_ANNOTATION);
        return mirrored.isPresent() && mirrored.equals(annotation(staticPod, CONFIG_HASH_ANNOTATION));
    }

    /**
     * The mirror pod to create for a static pod: a copy without UID or resourceVersion, annotated with the static
     * pod's hash and controlled by the Node (so that deleting the Node deletes its mirror pods), as upstream. The
     * apiserver's NodeRestriction admission requires exactly this owner reference.
     */
    public static Pod mirrorPodOf(Pod staticPod, String nodeName, String nodeUid) {
        ObjectMeta metadata = staticPod.getMetadata();
        Map<String, String> annotations = new LinkedHashMap<>(
                metadata.getAnnotations() == null ? Map.of() : metadata.getAnnotations());
        annotations.put(CONFIG_MIRROR_ANNOTATION, annotations.getOrDefault(CONFIG_HASH_ANNOTATION, metadata.getUid()));
        return new PodBuilder(staticPod)
                .editMetadata()
                .withUid(null)
                .withResourceVersion(null)
                .withAnnotations(annotations)
                .withOwnerReferences(List.of(new OwnerReferenceBuilder()
                        .withApiVersion("v1")
                        .withKind("Node")
                        .withName(nodeName)
                        .withUid(nodeUid)
                        .withController(true)
                        .build()))
                .endMetadata()
                .withStatus(null)
                .build();
    }

    private static Optional<String> annotation(Pod pod, String key) {
        Map<String, String> annotations = pod.getMetadata() == null ? null : pod.getMetadata().getAnnotations();
        return annotations == null ? Optional.empty() : Optional.ofNullable(annotations.get(key));
    }
}
