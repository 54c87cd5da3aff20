package io.k4j.kubelet.config;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Turns a manifest file's content into the static pod a kubelet runs, as upstream's file source: the pod gets the
 * node's name appended to its name, namespace {@code default} unless it names one, {@code spec.nodeName}, the API's
 * defaults for the fields the kubelet reads, a toleration of every NoExecute taint, and a UID that is a hash of its
 * content, the node and the file (so that a changed file is a new pod), also kept in the
 * {@code kubernetes.io/config.hash} annotation. Stateless and thread-safe.
 */
public final class PodManifests {
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private PodManifests() {}

    /** A manifest that is not a valid pod, with upstream-style reasons. */
    public static final class InvalidManifestException extends Exception {
        public InvalidManifestException(String message) {
            super(message);
        }
    }

    /**
     * The static pod of a manifest.
     *
     * @param content the file's YAML or JSON
     * @param source the file's path, part of the pod's hash
     * @param nodeName the node the pod runs on
     * @param seen the {@code kubernetes.io/config.seen} value (not part of the hash)
     */
    public static Pod decode(String content, String source, String nodeName, String seen)
            throws InvalidManifestException {
        requireNonNull(content, "content is null");
        Pod pod = parse(content);
        if (pod.getMetadata() == null || pod.getMetadata().getName() == null || pod.getMetadata().getName().isEmpty()) {
            throw new InvalidManifestException("metadata.name: Required value: name is required");
        }
        if (pod.getSpec() == null || pod.getSpec().getContainers() == null || pod.getSpec().getContainers().isEmpty()) {
            throw new InvalidManifestException("spec.containers: Required value");
        }
        for (Container container : allContainers(pod.getSpec())) {
            if (container.getName() == null || container.getName().isEmpty()) {
                throw new InvalidManifestException("spec.containers.name: Required value");
            }
            if (container.getImage() == null || container.getImage().isEmpty()) {
                throw new InvalidManifestException("spec.containers[" + container.getName() + "].image: Required value");
            }
        }
        String lowerNodeName = nodeName.toLowerCase(Locale.ROOT);
        pod.getMetadata().setName(pod.getMetadata().getName() + "-" + lowerNodeName);
        if (pod.getMetadata().getNamespace() == null || pod.getMetadata().getNamespace().isEmpty()) {
            pod.getMetadata().setNamespace("default");
        }
        pod.getMetadata().setResourceVersion(null);
        pod.getSpec().setNodeName(nodeName);
        applySpecDefaults(pod.getSpec());
        List<Toleration> tolerations = new ArrayList<>(
                pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations());
        // As upstream: a static pod stays on its node whatever NoExecute taint the node gets.
        tolerations.add(new TolerationBuilder().withOperator("Exists").withEffect("NoExecute").build());
        pod.getSpec().setTolerations(tolerations);
        pod.setStatus(null);
        if (pod.getMetadata().getUid() == null || pod.getMetadata().getUid().isEmpty()) {
            pod.getMetadata().setUid(hash(pod, lowerNodeName, source));
        }
        Map<String, String> annotations = new LinkedHashMap<>(
                pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations());
        annotations.put(StaticPods.CONFIG_HASH_ANNOTATION, pod.getMetadata().getUid());
        annotations.put(StaticPods.CONFIG_SEEN_ANNOTATION, seen);
        annotations.put(StaticPods.CONFIG_SOURCE_ANNOTATION, StaticPods.FILE_SOURCE);
        pod.getMetadata().setAnnotations(annotations);
        return pod;
    }

    private static Pod parse(String content) throws InvalidManifestException {
        Object decoded;
        try {
            decoded = SERIALIZATION.unmarshal(content);
        }
        catch (RuntimeException e) {
            throw new InvalidManifestException("invalid pod: " + e.getMessage());
        }
        if (decoded instanceof Pod pod) {
            return pod;
        }
        String kind = decoded instanceof HasMetadata resource ? resource.getKind() : null;
        throw new InvalidManifestException("invalid pod: the manifest is not a Pod" + (kind == null ? "" : " but a " + kind));
    }

    /** The API's defaults for what the kubelet reads; the mirror pod gets the rest from the apiserver. */
    private static void applySpecDefaults(PodSpec spec) {
        if (spec.getRestartPolicy() == null || spec.getRestartPolicy().isEmpty()) {
            spec.setRestartPolicy("Always");
        }
        if (spec.getDnsPolicy() == null || spec.getDnsPolicy().isEmpty()) {
            spec.setDnsPolicy("ClusterFirst");
        }
        if (spec.getTerminationGracePeriodSeconds() == null) {
            spec.setTerminationGracePeriodSeconds(30L);
        }
        if (spec.getSchedulerName() == null || spec.getSchedulerName().isEmpty()) {
            spec.setSchedulerName("default-scheduler");
        }
        if (spec.getSecurityContext() == null) {
            spec.setSecurityContext(new PodSecurityContext());
        }
        if (spec.getEnableServiceLinks() == null) {
            spec.setEnableServiceLinks(true);
        }
        for (Container container : allContainers(spec)) {
            if (container.getImagePullPolicy() == null || container.getImagePullPolicy().isEmpty()) {
                container.setImagePullPolicy(latestTag(container.getImage()) ? "Always" : "IfNotPresent");
            }
            if (container.getTerminationMessagePath() == null || container.getTerminationMessagePath().isEmpty()) {
                container.setTerminationMessagePath("/dev/termination-log");
            }
            if (container.getTerminationMessagePolicy() == null || container.getTerminationMessagePolicy().isEmpty()) {
                container.setTerminationMessagePolicy("File");
            }
            if (container.getPorts() != null) {
                for (ContainerPort port : container.getPorts()) {
                    if (port.getProtocol() == null || port.getProtocol().isEmpty()) {
                        port.setProtocol("TCP");
                    }
                }
            }
        }
    }

    private static boolean latestTag(String image) {
        if (image.contains("@")) {
            return false;
        }
        int slash = image.lastIndexOf('/');
        int colon = image.lastIndexOf(':');
        return colon <= slash || image.substring(colon + 1).equals("latest");
    }

    private static List<Container> allContainers(PodSpec spec) {
        return Stream.concat(spec.getInitContainers() == null ? Stream.empty() : spec.getInitContainers().stream(),
                spec.getContainers() == null ? Stream.empty() : spec.getContainers().stream()).toList();
    }

    private static String hash(Pod pod, String nodeName, String source) {
        try {
            MessageDigest digest = MessageDigest.getInstance("MD5");
            digest.update(SERIALIZATION.asJson(pod).getBytes(StandardCharsets.UTF_8));
            digest.update(("host:" + nodeName).getBytes(StandardCharsets.UTF_8));
            digest.update(("file:" + source).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest.digest());
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every JDK", e);
        }
    }
}
