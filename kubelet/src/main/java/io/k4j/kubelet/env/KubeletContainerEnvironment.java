package io.k4j.kubelet.env;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapKeySelector;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretKeySelector;
import io.fabric8.kubernetes.api.model.Service;
import io.k4j.controllerkit.events.EventRecorder;
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
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The kubelet's {@link ContainerEnvironment}: reads ConfigMaps, Secrets and Services through a
 * {@link PodObjectSource} (the node's identity) and the node's allocatable for defaulted resource limits.
 * Thread-safe.
 */
public final class KubeletContainerEnvironment implements ContainerEnvironment {
    private static final Pattern ENV_VAR_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");
    private static final String DEFAULT_NAMESPACE = "default";

    private final PodObjectSource objects;
    private final EventRecorder events;
    private final Supplier<Map<String, Quantity>> nodeAllocatable;

    /**
     * @param objects where ConfigMaps, Secrets and Services are read
     * @param events where {@code InvalidEnvironmentVariableNames} warnings about the pod go
     * @param nodeAllocatable the node's {@code status.allocatable} (cpu, memory, ephemeral-storage), the limits of a
     *     container that sets none for {@code resourceFieldRef}
     */
    public KubeletContainerEnvironment(PodObjectSource objects, EventRecorder events, Supplier<Map<String, Quantity>> nodeAllocatable) {
        this.objects = requireNonNull(objects, "objects is null");
        this.events = requireNonNull(events, "events is null");
        this.nodeAllocatable = requireNonNull(nodeAllocatable, "nodeAllocatable is null");
    }

    @Override
    public List<EnvironmentVariable> resolve(Pod pod, Container container, PodAddresses addresses) throws CreateContainerConfigException {
        requireNonNull(pod, "pod is null");
        requireNonNull(container, "container is null");
        requireNonNull(addresses, "addresses is null");
        String namespace = pod.getMetadata().getNamespace();
        Map<String, Optional<ConfigMap>> configMaps = new HashMap<>();
        Map<String, Optional<Secret>> secrets = new HashMap<>();
        Map<String, String> variables = new LinkedHashMap<>();

        // envFrom first, so that env overrides it.
        for (EnvFromSource envFrom : listOrEmpty(container.getEnvFrom())) {
            String prefix = envFrom.getPrefix() == null ? "" : envFrom.getPrefix();
            if (envFrom.getConfigMapRef() != null) {
                String name = envFrom.getConfigMapRef().getName();
                Optional<ConfigMap> configMap = configMap(configMaps, namespace, name);
                if (configMap.isEmpty()) {
                    if (isTrue(envFrom.getConfigMapRef().getOptional())) {
                        continue;
                    }
                    throw new CreateContainerConfigException("configmap \"" + name + "\" not found");
                }
                addAll(pod, variables, prefix, mapOrEmpty(configMap.get().getData()), "configMap", namespace, name);
            } else if (envFrom.getSecretRef() != null) {
                String name = envFrom.getSecretRef().getName();
                Optional<Secret> secret = secret(secrets, namespace, name);
                if (secret.isEmpty()) {
                    if (isTrue(envFrom.getSecretRef().getOptional())) {
                        continue;
                    }
                    throw new CreateContainerConfigException("secret \"" + name + "\" not found");
                }
                addAll(pod, variables, prefix, decoded(secret.get()), "secret", namespace, name);
            }
        }

        boolean serviceLinks = pod.getSpec().getEnableServiceLinks() == null || pod.getSpec().getEnableServiceLinks();
        Map<String, String> serviceVariables = ServiceEnvironment.forPod(namespace, serviceLinks, services(namespace));

        for (EnvVar variable : listOrEmpty(container.getEnv())) {
            String value = variable.getValue() == null ? "" : variable.getValue();
            EnvVarSource source = variable.getValueFrom();
            if (!value.isEmpty()) {
                value = VariableExpansion.expand(value, name -> variables.containsKey(name) ? variables.get(name) : serviceVariables.get(name));
            } else if (source != null) {
                Optional<String> resolved = resolveSource(pod, container, addresses, namespace, source, configMaps, secrets);
                if (resolved.isEmpty()) {
                    continue;
                }
                value = resolved.get();
            }
            variables.put(variable.getName(), value);
        }

        List<EnvironmentVariable> result = new ArrayList<>(variables.size() + serviceVariables.size());
        variables.forEach((name, value) -> result.add(new EnvironmentVariable(name, value)));
        serviceVariables.forEach((name, value) -> {
            if (!variables.containsKey(name)) {
                result.add(new EnvironmentVariable(name, value));
            }
        });
        return List.copyOf(result);
    }

    /** The value of one {@code valueFrom}, or empty when an optional reference is missing (the variable is left out). */
    private Optional<String> resolveSource(Pod pod, Container container, PodAddresses addresses, String namespace, EnvVarSource source,
            Map<String, Optional<ConfigMap>> configMaps, Map<String, Optional<Secret>> secrets) throws CreateContainerConfigException {
        if (source.getFieldRef() != null) {
            try {
                return Optional.of(DownwardApi.fieldValue(pod, source.getFieldRef().getFieldPath(), addresses));
            } catch (IllegalArgumentException e) {
                throw new CreateContainerConfigException(e.getMessage(), e);
            }
        }
        if (source.getResourceFieldRef() != null) {
            try {
                return Optional.of(DownwardApi.resourceValue(source.getResourceFieldRef(), container, nodeAllocatable.get()));
            } catch (IllegalArgumentException e) {
                throw new CreateContainerConfigException(e.getMessage(), e);
            }
        }
        if (source.getConfigMapKeyRef() != null) {
            ConfigMapKeySelector selector = source.getConfigMapKeyRef();
            boolean optional = isTrue(selector.getOptional());
            Optional<ConfigMap> configMap = configMap(configMaps, namespace, selector.getName());
            if (configMap.isEmpty()) {
                if (optional) {
                    return Optional.empty();
                }
                throw new CreateContainerConfigException("configmap \"" + selector.getName() + "\" not found");
            }
            String value = mapOrEmpty(configMap.get().getData()).get(selector.getKey());
            if (value == null) {
                if (optional) {
                    return Optional.empty();
                }
                throw new CreateContainerConfigException(
                        "couldn't find key " + selector.getKey() + " in ConfigMap " + namespace + "/" + selector.getName());
            }
            return Optional.of(value);
        }
        if (source.getSecretKeyRef() != null) {
            SecretKeySelector selector = source.getSecretKeyRef();
            boolean optional = isTrue(selector.getOptional());
            Optional<Secret> secret = secret(secrets, namespace, selector.getName());
            if (secret.isEmpty()) {
                if (optional) {
                    return Optional.empty();
                }
                throw new CreateContainerConfigException("secret \"" + selector.getName() + "\" not found");
            }
            String value = decoded(secret.get()).get(selector.getKey());
            if (value == null) {
                if (optional) {
                    return Optional.empty();
                }
                throw new CreateContainerConfigException(
                        "couldn't find key " + selector.getKey() + " in Secret " + namespace + "/" + selector.getName());
            }
            return Optional.of(value);
        }
        return Optional.of("");
    }

    private void addAll(Pod pod, Map<String, String> variables, String prefix, Map<String, String> data, String kind, String namespace,
            String name) {
        List<String> invalid = new ArrayList<>();
        for (Map.Entry<String, String> entry : new TreeMap<>(data).entrySet()) {
            String key = prefix + entry.getKey();
            if (!ENV_VAR_NAME.matcher(key).matches()) {
                invalid.add(key);
                continue;
            }
            variables.put(key, entry.getValue());
        }
        if (!invalid.isEmpty()) {
            events.event(pod, EventRecorder.WARNING, "InvalidEnvironmentVariableNames",
                    "Keys [" + String.join(", ", invalid) + "] from the EnvFrom " + kind + " " + namespace + "/" + name
                            + " were skipped since they are considered invalid environment variable names.");
        }
    }

    private Optional<ConfigMap> configMap(Map<String, Optional<ConfigMap>> cache, String namespace, String name)
            throws CreateContainerConfigException {
        Optional<ConfigMap> cached = cache.get(name);
        if (cached != null) {
            return cached;
        }
        try {
            Optional<ConfigMap> configMap = objects.configMap(namespace, name);
            cache.put(name, configMap);
            return configMap;
        } catch (IOException e) {
            throw new CreateContainerConfigException(e.getMessage(), e);
        }
    }

    private Optional<Secret> secret(Map<String, Optional<Secret>> cache, String namespace, String name)
            throws CreateContainerConfigException {
        Optional<Secret> cached = cache.get(name);
        if (cached != null) {
            return cached;
        }
        try {
            Optional<Secret> secret = objects.secret(namespace, name);
            cache.put(name, secret);
            return secret;
        } catch (IOException e) {
            throw new CreateContainerConfigException(e.getMessage(), e);
        }
    }

    private List<Service> services(String namespace) throws CreateContainerConfigException {
        try {
            List<Service> services = new ArrayList<>(objects.services(namespace));
            if (!namespace.equals(DEFAULT_NAMESPACE)) {
                services.addAll(objects.services(DEFAULT_NAMESPACE));
            }
            return services;
        } catch (IOException e) {
            throw new CreateContainerConfigException("failed to list services when setting up env vars", e);
        }
    }

    /** A Secret's data decoded to strings, as upstream's {@code string(value)}. */
    private static Map<String, String> decoded(Secret secret) {
        Map<String, String> decoded = new LinkedHashMap<>();
        mapOrEmpty(secret.getData()).forEach((key, value) ->
                decoded.put(key, new String(Base64.getMimeDecoder().decode(value == null ? "" : value), StandardCharsets.UTF_8)));
        return decoded;
    }

    private static boolean isTrue(Boolean value) {
        return value != null && value;
    }

    private static <T> List<T> listOrEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static Map<String, String> mapOrEmpty(Map<String, String> map) {
        return map == null ? Map.of() : map;
    }
}
