package io.k4j.kubelet.volume;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapProjection;
import io.fabric8.kubernetes.api.model.ConfigMapVolumeSource;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.DownwardAPIProjection;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeSource;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ProjectedVolumeSource;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretProjection;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.k4j.kubelet.env.DownwardApi;
import io.k4j.kubelet.podobjects.PodObjectSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Builds the files of configMap, secret, downwardAPI and projected volumes from the API objects, as upstream's
 * {@code MakePayload}/{@code CollectData}. Thread-safe.
 */
final class Payloads {
    static final int DEFAULT_MODE = 0644;
    private static final long DEFAULT_TOKEN_EXPIRATION_SECONDS = 3600;

    private final PodObjectSource objects;
    private final ServiceAccountTokens tokens;
    private final Supplier<Map<String, Quantity>> nodeAllocatable;

    Payloads(PodObjectSource objects, ServiceAccountTokens tokens, Supplier<Map<String, Quantity>> nodeAllocatable) {
        this.objects = requireNonNull(objects, "objects is null");
        this.tokens = requireNonNull(tokens, "tokens is null");
        this.nodeAllocatable = requireNonNull(nodeAllocatable, "nodeAllocatable is null");
    }

    Map<String, FileProjection> configMap(Pod pod, ConfigMapVolumeSource source) throws SetUpFailure {
        boolean optional = isTrue(source.getOptional());
        Optional<ConfigMap> configMap = readConfigMap(pod.getMetadata().getNamespace(), source.getName());
        if (configMap.isEmpty() && !optional) {
            throw new SetUpFailure("configmap \"" + source.getName() + "\" not found");
        }
        return configMapPayload(configMap, source.getItems(), mode(source.getDefaultMode()), optional);
    }

    Map<String, FileProjection> secret(Pod pod, SecretVolumeSource source) throws SetUpFailure {
        boolean optional = isTrue(source.getOptional());
        Optional<Secret> secret = readSecret(pod.getMetadata().getNamespace(), source.getSecretName());
        if (secret.isEmpty() && !optional) {
            throw new SetUpFailure("secret \"" + source.getSecretName() + "\" not found");
        }
        return secretPayload(secret, source.getItems(), mode(source.getDefaultMode()), optional);
    }

    Map<String, FileProjection> downwardApi(Pod pod, DownwardAPIVolumeSource source) throws SetUpFailure {
        return downwardApiPayload(pod, source.getItems(), mode(source.getDefaultMode()));
    }

    /**
     * The files of a projected volume.
     *
     * @param fsUser the user that runs all the pod's containers, who then owns its token files
     * @param fsGroup whether the volume gets an fsGroup; with a user or a group, token files are written 0600 as
     *     upstream (the group ownership then makes them 0640)
     */
    Map<String, FileProjection> projected(Pod pod, ProjectedVolumeSource source, OptionalLong fsUser, boolean fsGroup) throws SetUpFailure {
        boolean restrictTokenMode = fsUser.isPresent() || fsGroup;
        int defaultMode = mode(source.getDefaultMode());
        Map<String, FileProjection> payload = new HashMap<>();
        List<String> errors = new ArrayList<>();
        String namespace = pod.getMetadata().getNamespace();
        for (VolumeProjection projection : listOrEmpty(source.getSources())) {
            try {
                if (projection.getConfigMap() != null) {
                    ConfigMapProjection configMapSource = projection.getConfigMap();
                    boolean optional = isTrue(configMapSource.getOptional());
                    Optional<ConfigMap> configMap = readConfigMap(namespace, configMapSource.getName());
                    if (configMap.isEmpty() && !optional) {
                        throw new SetUpFailure("configmap \"" + configMapSource.getName() + "\" not found");
                    }
                    payload.putAll(configMapPayload(configMap, configMapSource.getItems(), defaultMode, optional));
                } else if (projection.getSecret() != null) {
                    SecretProjection secretSource = projection.getSecret();
                    boolean optional = isTrue(secretSource.getOptional());
                    Optional<Secret> secret = readSecret(namespace, secretSource.getName());
                    if (secret.isEmpty() && !optional) {
                        throw new SetUpFailure("secret \"" + secretSource.getName() + "\" not found");
                    }
                    payload.putAll(secretPayload(secret, secretSource.getItems(), defaultMode, optional));
                } else if (projection.getDownwardAPI() != null) {
                    DownwardAPIProjection downward = projection.getDownwardAPI();
                    payload.putAll(downwardApiPayload(pod, downward.getItems(), defaultMode));
                } else if (projection.getServiceAccountToken() != null) {
                    ServiceAccountTokenProjection token = projection.getServiceAccountToken();
                    String serviceAccount = pod.getSpec().getServiceAccountName() == null || pod.getSpec().getServiceAccountName().isEmpty()
                            ? "default" : pod.getSpec().getServiceAccountName();
                    long expiration = token.getExpirationSeconds() == null ? DEFAULT_TOKEN_EXPIRATION_SECONDS : token.getExpirationSeconds();
                    ServiceAccountTokens.Key key = new ServiceAccountTokens.Key(namespace, serviceAccount,
                            token.getAudience() == null ? "" : token.getAudience(), expiration, pod.getMetadata().getName(),
                            pod.getMetadata().getUid());
                    try {
                        String value = tokens.token(key);
                        payload.put(token.getPath(), new FileProjection(value.getBytes(StandardCharsets.UTF_8),
                                restrictTokenMode ? 0600 : defaultMode, fsUser.orElse(-1)));
                    } catch (IOException e) {
                        throw new SetUpFailure(e.getMessage(), e);
                    }
                } else if (projection.getClusterTrustBundle() != null) {
                    throw new SetUpFailure("clusterTrustBundle projections are not supported by this kubelet");
                }
            } catch (SetUpFailure e) {
                errors.add(e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            // Upstream aggregates the errors of all sources: one as it is, several as "[a, b]".
            throw new SetUpFailure(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
        }
        return payload;
    }

    private static Map<String, FileProjection> configMapPayload(Optional<ConfigMap> configMap, List<KeyToPath> items, int defaultMode,
            boolean optional) throws SetUpFailure {
        Map<String, byte[]> data = new LinkedHashMap<>();
        configMap.ifPresent(object -> {
            mapOrEmpty(object.getData()).forEach((key, value) -> data.put(key, value.getBytes(StandardCharsets.UTF_8)));
            mapOrEmpty(object.getBinaryData()).forEach((key, value) -> data.put(key, Base64.getMimeDecoder().decode(value)));
        });
        return keyedPayload(data, items, defaultMode, optional, "configmap references non-existent config key: ");
    }

    private static Map<String, FileProjection> secretPayload(Optional<Secret> secret, List<KeyToPath> items, int defaultMode,
            boolean optional) throws SetUpFailure {
        Map<String, byte[]> data = new LinkedHashMap<>();
        secret.ifPresent(object -> mapOrEmpty(object.getData()).forEach((key, value) ->
                data.put(key, Base64.getMimeDecoder().decode(value == null ? "" : value))));
        return keyedPayload(data, items, defaultMode, optional, "references non-existent secret key: ");
    }

    private static Map<String, FileProjection> keyedPayload(Map<String, byte[]> data, List<KeyToPath> items, int defaultMode,
            boolean optional, String missingKeyMessage) throws SetUpFailure {
        Map<String, FileProjection> payload = new HashMap<>();
        if (items == null || items.isEmpty()) {
            data.forEach((key, value) -> payload.put(key, new FileProjection(value, defaultMode)));
            return payload;
        }
        for (KeyToPath item : items) {
            byte[] value = data.get(item.getKey());
            if (value == null) {
                if (optional) {
                    continue;
                }
                throw new SetUpFailure(missingKeyMessage + item.getKey());
            }
            payload.put(item.getPath(), new FileProjection(value, item.getMode() == null ? defaultMode : item.getMode()));
        }
        return payload;
    }

    private Map<String, FileProjection> downwardApiPayload(Pod pod, List<DownwardAPIVolumeFile> items, int defaultMode) throws SetUpFailure {
        Map<String, FileProjection> payload = new HashMap<>();
        List<String> errors = new ArrayList<>();
        for (DownwardAPIVolumeFile item : listOrEmpty(items)) {
            int mode = item.getMode() == null ? defaultMode : item.getMode();
            try {
                String value;
                if (item.getFieldRef() != null) {
                    value = DownwardApi.metadataValue(pod, item.getFieldRef().getFieldPath());
                } else if (item.getResourceFieldRef() != null) {
                    String containerName = item.getResourceFieldRef().getContainerName();
                    Container container = findContainer(pod, containerName)
                            .orElseThrow(() -> new IllegalArgumentException("container " + containerName + " not found"));
                    value = DownwardApi.resourceValue(item.getResourceFieldRef(), container, nodeAllocatable.get());
                } else {
                    continue;
                }
                payload.put(item.getPath(), new FileProjection(value.getBytes(StandardCharsets.UTF_8), mode));
            } catch (IllegalArgumentException e) {
                errors.add(e.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new SetUpFailure(errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]");
        }
        return payload;
    }

    private static Optional<Container> findContainer(Pod pod, String name) {
        return Stream.concat(listOrEmpty(pod.getSpec().getContainers()).stream(), listOrEmpty(pod.getSpec().getInitContainers()).stream())
                .filter(container -> container.getName().equals(name))
                .findFirst();
    }

    private Optional<ConfigMap> readConfigMap(String namespace, String name) throws SetUpFailure {
        try {
            return objects.configMap(namespace, name);
        } catch (IOException e) {
            throw new SetUpFailure(e.getMessage(), e);
        }
    }

    private Optional<Secret> readSecret(String namespace, String name) throws SetUpFailure {
        try {
            return objects.secret(namespace, name);
        } catch (IOException e) {
            throw new SetUpFailure(e.getMessage(), e);
        }
    }

    private static int mode(Integer mode) {
        return mode == null ? DEFAULT_MODE : mode & 0777;
    }

    private static boolean isTrue(Boolean value) {
        return value != null && value;
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static <V> Map<String, V> mapOrEmpty(Map<String, V> map) {
        return map == null ? Map.of() : map;
    }
}
