package io.k4j.apiserver.admission.plugin.serviceaccount;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.admission.AdmissionAttributes;
import io.k4j.apiserver.admission.MutatingAdmissionPlugin;
import io.k4j.apiserver.admission.Operation;
import io.k4j.apiserver.admission.Resources;
import io.k4j.apiserver.admission.ValidatingAdmissionPlugin;
import io.k4j.apiserver.registry.generic.Registry;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Gives every pod a service account ({@code default} unless it names one), checks that it exists, copies its
 * image pull secrets, and mounts a projected, auto-rotated API token ({@code kube-api-access-*}) into every
 * container unless automounting is switched off on the pod or the service account. Thread-safe.
 */
public final class ServiceAccount implements MutatingAdmissionPlugin, ValidatingAdmissionPlugin {
    public static final String NAME = "ServiceAccount";
    public static final String DEFAULT_SERVICE_ACCOUNT = "default";
    public static final String TOKEN_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount";
    public static final String MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";
    /** Upstream's token lifetime for projected volumes: one hour plus a little, so the kubelet rotates before expiry. */
    static final long TOKEN_EXPIRATION_SECONDS = 3607;
    private static final String VOLUME_PREFIX = "kube-api-access-";
    private static final String NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

    private final Registry registry;
    private final RandomGenerator random;

    public ServiceAccount(Registry registry) {
        // The volume name's suffix needs no secrecy (upstream draws it from math/rand); SecureRandom read the system's
        // generator under a global lock for each of its characters, on every pod create.
        this(registry, new Random());
    }

    ServiceAccount(Registry registry, RandomGenerator random) {
        this.registry = requireNonNull(registry, "registry is null");
        this.random = requireNonNull(random, "random is null");
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Operation operation) {
        return operation == Operation.CREATE;
    }

    @Override
    public void admit(AdmissionAttributes attributes) {
        if (!isPodCreate(attributes)) {
            return;
        }
        ObjectNode pod = attributes.object();
        if (isMirrorPod(pod)) {
            return;
        }
        ObjectNode spec = pod.with("spec");
        if (spec.path("serviceAccountName").asText("").isEmpty()) {
            spec.put("serviceAccountName", DEFAULT_SERVICE_ACCOUNT);
        }
        String serviceAccountName = spec.get("serviceAccountName").asText();
        ObjectNode serviceAccount = lookUp(attributes, serviceAccountName);
        if (shouldAutomount(serviceAccount, pod)) {
            mountToken(spec);
        }
        if (spec.path("imagePullSecrets").isEmpty() && serviceAccount.path("imagePullSecrets").size() > 0) {
            spec.set("imagePullSecrets", serviceAccount.get("imagePullSecrets").deepCopy());
        }
    }

    @Override
    public void validate(AdmissionAttributes attributes) {
        if (!isPodCreate(attributes)) {
            return;
        }
        ObjectNode pod = attributes.object();
        JsonNode spec = pod.path("spec");
        if (isMirrorPod(pod)) {
            if (!spec.path("serviceAccountName").asText("").isEmpty()) {
                throw Resources.forbidden(attributes, "a mirror pod may not reference service accounts");
            }
            for (JsonNode volume : spec.path("volumes")) {
                if (volume.has("secret") || volume.has("configMap") || volume.has("projected")) {
                    throw Resources.forbidden(attributes, "a mirror pod may not reference secrets, configmaps or projected volumes");
                }
            }
            return;
        }
        if (spec.path("serviceAccountName").asText("").isEmpty()) {
            throw Resources.forbidden(attributes, "no service account specified for pod " + attributes.namespace() + "/" + pod.path("metadata").path("name").asText());
        }
    }

    private static boolean isPodCreate(AdmissionAttributes attributes) {
        return Resources.isResource(attributes, Resources.PODS) && attributes.subresource().isEmpty() && attributes.object() != null;
    }

    private static boolean isMirrorPod(ObjectNode pod) {
        return pod.path("metadata").path("annotations").has(MIRROR_POD_ANNOTATION);
    }

    private ObjectNode lookUp(AdmissionAttributes attributes, String serviceAccountName) {
        try {
            return registry.require(Resources.SERVICE_ACCOUNTS).getForReading(attributes.namespace(), serviceAccountName);
        } catch (StatusException e) {
            if (e.reason() == StatusReason.NOT_FOUND) {
                throw Resources.forbidden(attributes, "error looking up service account " + attributes.namespace() + "/" + serviceAccountName
                        + ": serviceaccount \"" + serviceAccountName + "\" not found");
            }
            throw e;
        }
    }

    private static boolean shouldAutomount(ObjectNode serviceAccount, ObjectNode pod) {
        JsonNode podSetting = pod.path("spec").path("automountServiceAccountToken");
        if (podSetting.isBoolean()) {
            return podSetting.asBoolean();
        }
        JsonNode serviceAccountSetting = serviceAccount.path("automountServiceAccountToken");
        return !serviceAccountSetting.isBoolean() || serviceAccountSetting.asBoolean();
    }

    private void mountToken(ObjectNode spec) {
        Set<String> volumeNames = new HashSet<>();
        for (JsonNode volume : spec.path("volumes")) {
            volumeNames.add(volume.path("name").asText());
        }
        String volumeName = newVolumeName(volumeNames);
        boolean mounted = false;
        for (String containerList : new String[] {"initContainers", "containers"}) {
            for (JsonNode container : spec.path(containerList)) {
                if (container instanceof ObjectNode containerObject && !mountsTokenPath(containerObject)) {
                    ObjectNode mount = containerObject.withArray("volumeMounts").addObject();
                    mount.put("name", volumeName);
                    mount.put("readOnly", true);
                    mount.put("mountPath", TOKEN_MOUNT_PATH);
                    mounted = true;
                }
            }
        }
        if (mounted) {
            spec.withArray("volumes").add(projectedTokenVolume(volumeName));
        }
    }

    private static boolean mountsTokenPath(ObjectNode container) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (TOKEN_MOUNT_PATH.equals(mount.path("mountPath").asText())) {
                return true;
            }
        }
        return false;
    }

    private String newVolumeName(Set<String> taken) {
        while (true) {
            StringBuilder name = new StringBuilder(VOLUME_PREFIX);
            for (int i = 0; i < 5; i++) {
                name.append(NAME_ALPHABET.charAt(random.nextInt(NAME_ALPHABET.length())));
            }
            if (!taken.contains(name.toString())) {
                return name.toString();
            }
        }
    }

    private static ObjectNode projectedTokenVolume(String volumeName) {
        ObjectNode volume = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        volume.put("name", volumeName);
        ObjectNode projected = volume.putObject("projected");
        ArrayNode sources = projected.putArray("sources");
        ObjectNode token = sources.addObject().putObject("serviceAccountToken");
        token.put("expirationSeconds", TOKEN_EXPIRATION_SECONDS);
        token.put("path", "token");
        ObjectNode configMap = sources.addObject().putObject("configMap");
        ObjectNode caItem = configMap.putArray("items").addObject();
        caItem.put("key", "ca.crt");
        caItem.put("path", "ca.crt");
        configMap.put("name", "kube-root-ca.crt");
        ObjectNode namespaceItem = sources.addObject().putObject("downwardAPI").putArray("items").addObject();
        ObjectNode fieldRef = namespaceItem.putObject("fieldRef");
        fieldRef.put("apiVersion", "v1");
        fieldRef.put("fieldPath", "metadata.namespace");
        namespaceItem.put("path", "namespace");
        projected.put("defaultMode", 420);
        return volume;
    }
}
