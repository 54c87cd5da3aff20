package io.k4j.apiserver.nodejoin;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;

/**
 * What a node that presented the join token gets back from {@link NodeJoinHandler#PATH}, all PEM: the cluster CA, a
 * client certificate and key for {@code system:node:<name>} (group {@code system:nodes}), a kubelet serving certificate
 * and key signed by the cluster CA, a client certificate and key for its kube-proxy ({@code system:kube-proxy}), and
 * the cluster settings a node needs to run (k3s hands its agents the same things from {@code /v1-k3s/…}).
 *
 * <p>Immutable and thread-safe.
 */
public record NodeCredentials(
        String caCertificate,
        String clientCertificate,
        String clientKey,
        String servingCertificate,
        String servingKey,
        String kubeProxyCertificate,
        String kubeProxyKey,
        String clusterCidr) {
    public NodeCredentials {
        requireNonNull(caCertificate, "caCertificate is null");
        requireNonNull(clientCertificate, "clientCertificate is null");
        requireNonNull(clientKey, "clientKey is null");
        requireNonNull(servingCertificate, "servingCertificate is null");
        requireNonNull(servingKey, "servingKey is null");
        requireNonNull(kubeProxyCertificate, "kubeProxyCertificate is null");
        requireNonNull(kubeProxyKey, "kubeProxyKey is null");
        requireNonNull(clusterCidr, "clusterCidr is null");
    }

    public byte[] toJson() {
        ObjectNode body = Json.object();
        body.put("caCertificate", caCertificate);
        body.put("clientCertificate", clientCertificate);
        body.put("clientKey", clientKey);
        body.put("servingCertificate", servingCertificate);
        body.put("servingKey", servingKey);
        body.put("kubeProxyCertificate", kubeProxyCertificate);
        body.put("kubeProxyKey", kubeProxyKey);
        body.put("clusterCidr", clusterCidr);
        return Json.write(body);
    }

    /**
     * @throws IllegalArgumentException when a field is missing
     */
    public static NodeCredentials fromJson(byte[] json) {
        JsonNode body = Json.read(json);
        return new NodeCredentials(text(body, "caCertificate"), text(body, "clientCertificate"), text(body, "clientKey"),
                text(body, "servingCertificate"), text(body, "servingKey"), text(body, "kubeProxyCertificate"), text(body, "kubeProxyKey"),
                text(body, "clusterCidr"));
    }

    private static String text(JsonNode body, String field) {
        JsonNode value = body.path(field);
        if (!value.isTextual()) {
            throw new IllegalArgumentException("the node credentials lack " + field);
        }
        return value.asText();
    }

    @Override
    public String toString() {
        return "NodeCredentials[keys redacted]";
    }
}
