package io.k4j.kubelet.podobjects;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * Reads the objects a pod's volumes and environment refer to, with the node's identity (the Node authorizer lets a
 * node read only what its pods reference). Implementations are thread-safe.
 */
public interface PodObjectSource {
    /**
     * The ConfigMap, or empty when it does not exist.
     *
     * @throws IOException when it could not be read (apiserver unreachable, forbidden)
     */
    Optional<ConfigMap> configMap(String namespace, String name) throws IOException;

    /** The Secret, or empty when it does not exist. */
    Optional<Secret> secret(String namespace, String name) throws IOException;

    /** The Services of a namespace, for the service environment variables. */
    List<Service> services(String namespace) throws IOException;

    /**
     * Requests a token for a service account bound to a pod ({@code serviceaccounts/token}).
     *
     * @param request the TokenRequest's spec (audiences, expirationSeconds, boundObjectRef to the pod)
     * @return the answered TokenRequest with {@code status.token} and {@code status.expirationTimestamp}
     */
    TokenRequest requestToken(String namespace, String serviceAccountName, TokenRequest request) throws IOException;
}
