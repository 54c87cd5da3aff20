package io.k4j.apiserver.authorization.node;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The objects a pod uses, as the edges upstream's node authorizer graph draws from a pod: secrets (image pull
 * secrets, secret and projected volumes, CSI/FlexVolume/etc. secret references, environment), config maps (volumes,
 * projected volumes, environment), persistent volume claims (including the generated claims of ephemeral volumes)
 * and the service account. Immutable.
 */
record PodReferences(Set<String> secrets, Set<String> configMaps, Set<String> claims, String serviceAccount) {
    static PodReferences of(JsonNode pod) {
        Set<String> secrets = new LinkedHashSet<>();
        Set<String> configMaps = new LinkedHashSet<>();
        Set<String> claims = new LinkedHashSet<>();
        JsonNode spec = pod.path("spec");
        String podName = pod.path("metadata").path("name").asText("");
        for (JsonNode pullSecret : spec.path("imagePullSecrets")) {
            add(secrets, pullSecret.path("name"));
        }
        for (JsonNode volume : spec.path("volumes")) {
            add(secrets, volume.path("secret").path("secretName"));
            add(configMaps, volume.path("configMap").path("name"));
            add(claims, volume.path("persistentVolumeClaim").path("claimName"));
            if (volume.path("ephemeral").isObject()) {
                claims.add(podName + "-" + volume.path("name").asText(""));
            }
            for (JsonNode source : volume.path("projected").path("sources")) {
                add(secrets, source.path("secret").path("name"));
                add(configMaps, source.path("configMap").path("name"));
            }
            // Volume plugins that take credentials from a secret.
            for (String plugin : new String[] {"azureFile", "cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos", "csi"}) {
                JsonNode source = volume.path(plugin);
                add(secrets, source.path("secretRef").path("name"));
                add(secrets, source.path("nodePublishSecretRef").path("name"));
                add(secrets, source.path("secretName"));
            }
        }
        for (String containers : new String[] {"initContainers", "containers", "ephemeralContainers"}) {
            for (JsonNode container : spec.path(containers)) {
                for (JsonNode env : container.path("env")) {
                    add(secrets, env.path("valueFrom").path("secretKeyRef").path("name"));
                    add(configMaps, env.path("valueFrom").path("configMapKeyRef").path("name"));
                }
                for (JsonNode envFrom : container.path("envFrom")) {
                    add(secrets, envFrom.path("secretRef").path("name"));
                    add(configMaps, envFrom.path("configMapRef").path("name"));
                }
            }
        }
        String serviceAccount = spec.path("serviceAccountName").asText("");
        return new PodReferences(Set.copyOf(secrets), Set.copyOf(configMaps), Set.copyOf(claims), serviceAccount.isEmpty() ? "default" : serviceAccount);
    }

    private static void add(Set<String> names, JsonNode name) {
        if (name.isTextual() && !name.asText().isEmpty()) {
            names.add(name.asText());
        }
    }
}
