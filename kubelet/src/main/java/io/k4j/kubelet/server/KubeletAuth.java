package io.k4j.kubelet.server;

import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Who calls the kubelet server and whether they may: upstream's kubelet with {@code --authentication-token-webhook}
 * and {@code --authorization-mode=Webhook}, where both questions go to the apiserver.
 *
 * <p>Implementations are thread-safe.
 */
public interface KubeletAuth {
    /**
     * The caller: a client certificate the TLS layer verified against the cluster CA (user = common name, groups =
     * organizations), else a bearer token the apiserver accepts; empty when neither identifies anyone.
     */
    Optional<KubeletUser> authenticate(List<X509Certificate> verifiedChain, Optional<String> bearerToken);

    /** Whether {@code user} may {@code verb} the node's {@code subresource} (e.g. {@code get nodes/proxy}). */
    boolean authorize(KubeletUser user, String verb, String nodeName, String subresource);
}
