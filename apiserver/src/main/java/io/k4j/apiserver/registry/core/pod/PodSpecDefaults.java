package io.k4j.apiserver.registry.core.pod;

import static io.k4j.apiserver.registry.core.Trees.defaultInteger;
import static io.k4j.apiserver.registry.core.Trees.defaultText;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.registry.core.Trees;
import java.util.List;

/**
 * Upstream's v1 defaulting of a pod spec ({@code SetDefaults_PodSpec}, {@code SetDefaults_Container}, probes, ports,
 * volumes), shared by pods and every resource that embeds a pod template. Stateless and thread-safe.
 */
public final class PodSpecDefaults {
    /** The default grace period of a pod, in seconds. */
    public static final long DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
    private static final int DEFAULT_VOLUME_MODE = 0644;
    private static final List<String> CONTAINER_LISTS = List.of("initContainers", "containers", "ephemeralContainers");

    private PodSpecDefaults() {}

    /** Defaults a pod template's spec ({@code template.spec}), as for any embedded template. */
    public static void applyToTemplate(ObjectNode template) {
        if (template.get("spec") instanceof ObjectNode spec) {
            applyToSpec(spec);
        }
    }

    /** The defaults of every pod spec, embedded or not. */
    public static void applyToSpec(ObjectNode spec) {
        defaultText(spec, "dnsPolicy", "ClusterFirst");
        defaultText(spec, "restartPolicy", "Always");
        if (Trees.bool(spec, "hostNetwork")) {
            defaultHostNetworkPorts(spec);
        }
        if (!spec.hasNonNull("securityContext")) {
            spec.putObject("securityContext");
        }
        defaultInteger(spec, "terminationGracePeriodSeconds", DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
        defaultText(spec, "schedulerName", "default-scheduler");
        // The v1 API keeps the deprecated serviceAccount field as a mirror of serviceAccountName.
        if (Trees.text(spec, "serviceAccountName").isEmpty() && !Trees.text(spec, "serviceAccount").isEmpty()) {
            spec.put("serviceAccountName", Trees.text(spec, "serviceAccount"));
        }
        mirrorServiceAccount(spec);
        for (String list : CONTAINER_LISTS) {
            for (ObjectNode container : Trees.objects(spec, list)) {
                applyToContainer(container);
            }
        }
        for (ObjectNode volume : Trees.objects(spec, "volumes")) {
            applyToVolume(volume);
        }
    }

    /** The defaults only a pod (not a template) gets: requests from limits and {@code enableServiceLinks}. */
    public static void applyToPodSpec(ObjectNode spec) {
        for (String list : List.of("containers", "initContainers")) {
            for (ObjectNode container : Trees.objects(spec, list)) {
                JsonNode limits = Trees.at(container, "resources", "limits");
                if (limits.isObject() && !limits.isEmpty()) {
                    ObjectNode requests = Trees.object(container, "resources", "requests");
                    limits.properties().forEach(entry -> {
                        if (!requests.has(entry.getKey())) {
                            requests.set(entry.getKey(), entry.getValue().deepCopy());
                        }
                    });
                }
            }
        }
        if (!spec.hasNonNull("enableServiceLinks")) {
            spec.put("enableServiceLinks", true);
        }
        applyToSpec(spec);
    }

    /** Keeps the deprecated {@code serviceAccount} equal to {@code serviceAccountName}, as the v1 conversion does. */
    public static void mirrorServiceAccount(ObjectNode spec) {
        String name = Trees.text(spec, "serviceAccountName");
        if (!name.isEmpty()) {
            spec.put("serviceAccount", name);
        }
    }

    static void applyToContainer(ObjectNode container) {
        if (Trees.text(container, "imagePullPolicy").isEmpty()) {
            container.put("imagePullPolicy", "latest".equals(imageTag(Trees.text(container, "image"))) ? "Always" : "IfNotPresent");
        }
        defaultText(container, "terminationMessagePath", "/dev/termination-log");
        defaultText(container, "terminationMessagePolicy", "File");
        if (!container.hasNonNull("resources")) {
            container.putObject("resources");
        }
        for (ObjectNode port : Trees.objects(container, "ports")) {
            defaultText(port, "protocol", "TCP");
        }
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            if (container.get(probe) instanceof ObjectNode probeNode) {
                applyToProbe(probeNode);
            }
        }
        for (String handlerOwner : List.of("postStart", "preStop")) {
            if (Trees.at(container, "lifecycle", handlerOwner, "httpGet") instanceof ObjectNode httpGet) {
                applyToHttpGet(httpGet);
            }
        }
        for (ObjectNode variable : Trees.objects(container, "env")) {
            if (Trees.at(variable, "valueFrom", "fieldRef") instanceof ObjectNode fieldRef) {
                defaultText(fieldRef, "apiVersion", "v1");
            }
        }
    }

    /**
     * The tag of an image reference as upstream's {@code ParseImageName} sees it: {@code latest} when neither a tag
     * nor a digest is given, empty when only a digest is.
     */
    static String imageTag(String image) {
        String withoutDigest = image;
        int at = image.indexOf('@');
        boolean hasDigest = at >= 0;
        if (hasDigest) {
            withoutDigest = image.substring(0, at);
        }
        int colon = withoutDigest.lastIndexOf(':');
        int slash = withoutDigest.lastIndexOf('/');
        if (colon > slash) {
            return withoutDigest.substring(colon + 1);
        }
        return hasDigest ? "" : "latest";
    }

    private static void applyToProbe(ObjectNode probe) {
        defaultInteger(probe, "timeoutSeconds", 1);
        defaultInteger(probe, "periodSeconds", 10);
        defaultInteger(probe, "successThreshold", 1);
        defaultInteger(probe, "failureThreshold", 3);
        if (probe.get("httpGet") instanceof ObjectNode httpGet) {
            applyToHttpGet(httpGet);
        }
    }

    private static void applyToHttpGet(ObjectNode httpGet) {
        defaultText(httpGet, "path", "/");
        defaultText(httpGet, "scheme", "HTTP");
    }

    private static void applyToVolume(ObjectNode volume) {
        boolean hasSource = false;
        for (java.util.Map.Entry<String, JsonNode> entry : volume.properties()) {
            if (!entry.getKey().equals("name") && !entry.getValue().isNull()) {
                hasSource = true;
            }
        }
        if (!hasSource) {
            volume.putObject("emptyDir");
        }
        for (String source : List.of("secret", "configMap", "downwardAPI", "projected")) {
            if (volume.get(source) instanceof ObjectNode sourceNode) {
                defaultInteger(sourceNode, "defaultMode", DEFAULT_VOLUME_MODE);
            }
        }
        for (ObjectNode item : Trees.objects(volume, "downwardAPI", "items")) {
            if (item.get("fieldRef") instanceof ObjectNode fieldRef) {
                defaultText(fieldRef, "apiVersion", "v1");
            }
        }
        for (ObjectNode projection : Trees.objects(volume, "projected", "sources")) {
            if (projection.get("serviceAccountToken") instanceof ObjectNode token) {
                defaultInteger(token, "expirationSeconds", 3600);
            }
            for (ObjectNode item : Trees.objects(projection, "downwardAPI", "items")) {
                if (item.get("fieldRef") instanceof ObjectNode fieldRef) {
                    defaultText(fieldRef, "apiVersion", "v1");
                }
            }
        }
        if (volume.get("hostPath") instanceof ObjectNode hostPath) {
            defaultText(hostPath, "type", "");
        }
    }

    private static void defaultHostNetworkPorts(ObjectNode spec) {
        for (String list : List.of("containers", "initContainers")) {
            for (ObjectNode container : Trees.objects(spec, list)) {
                for (ObjectNode port : Trees.objects(container, "ports")) {
                    if (Trees.integer(port, "hostPort") == 0) {
                        port.put("hostPort", Trees.integer(port, "containerPort"));
                    }
                }
            }
        }
    }
}
