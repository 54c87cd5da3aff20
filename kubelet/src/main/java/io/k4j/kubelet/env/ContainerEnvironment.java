package io.k4j.kubelet.env;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * Builds a container's environment as upstream's kubelet ({@code makeEnvironmentVariables}): the service
 * environment variables of the pod's namespace and of the {@code kubernetes} service (unless
 * {@code enableServiceLinks} is false, which keeps only the {@code kubernetes} service's), then envFrom (prefix,
 * optional; invalid names skipped with an {@code InvalidEnvironmentVariableNames} event), then env (value with
 * {@code $(VAR)} expansion, fieldRef, resourceFieldRef with limits defaulting to the node's allocatable,
 * configMapKeyRef, secretKeyRef). Implementations are thread-safe.
 */
public interface ContainerEnvironment {
    /**
     * The container's environment, in upstream's order (services first, later definitions overriding earlier ones
     * of the same name).
     *
     * @param addresses the pod's and node's IPs for {@code status.podIP(s)} and {@code status.hostIP(s)}
     * @throws CreateContainerConfigException when a referenced ConfigMap, Secret or key is missing and not optional,
     *     with upstream's message (e.g. {@code configmap "x" not found}); the worker reports the container as
     *     waiting with reason CreateContainerConfigError and retries
     */
    List<EnvironmentVariable> resolve(Pod pod, Container container, PodAddresses addresses)
            throws CreateContainerConfigException;
}
