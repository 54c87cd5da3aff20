package io.k4j.apiserver.authentication.serviceaccount;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What a bound service-account token says.
 *
 * @param namespace the service account's namespace
 * @param serviceAccount the service account
 * @param audiences who may accept the token
 * @param validity from now until expiry
 * @param pod the pod the token is bound to, if any
 * @param secret the secret the token is bound to, if any
 * @param node the node of the bound pod, if known
 * @param warnAfter for tokens given a longer life than asked for: from now until clients should be warned
 */
public record TokenClaims(
        String namespace,
        ObjectReference serviceAccount,
        List<String> audiences,
        Duration validity,
        Optional<ObjectReference> pod,
        Optional<ObjectReference> secret,
        Optional<ObjectReference> node,
        Optional<Duration> warnAfter) {
    public TokenClaims {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(serviceAccount, "serviceAccount is null");
        audiences = List.copyOf(requireNonNull(audiences, "audiences is null"));
        requireNonNull(validity, "validity is null");
        requireNonNull(pod, "pod is null");
        requireNonNull(secret, "secret is null");
        requireNonNull(node, "node is null");
        requireNonNull(warnAfter, "warnAfter is null");
    }
}
