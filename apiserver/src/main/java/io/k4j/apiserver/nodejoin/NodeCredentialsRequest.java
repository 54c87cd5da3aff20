package io.k4j.apiserver.nodejoin;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.codec.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * What a joining node asks for at {@link NodeJoinHandler#PATH}: credentials for {@code system:node:<nodeName>} and a
 * kubelet serving certificate valid for its host names and addresses. The JSON body is
 * {@code {"nodeName": "…", "hostNames": ["…"], "addresses": ["10.0.0.5"]}}. Immutable and thread-safe.
 *
 * @param nodeName the node's name (a DNS-1123 subdomain)
 * @param hostNames DNS names for the kubelet serving certificate
 * @param addresses IP address literals for the kubelet serving certificate
 */
public record NodeCredentialsRequest(String nodeName, List<String> hostNames, List<String> addresses) {
    public NodeCredentialsRequest {
        requireNonNull(nodeName, "nodeName is null");
        hostNames = List.copyOf(requireNonNull(hostNames, "hostNames is null"));
        addresses = List.copyOf(requireNonNull(addresses, "addresses is null"));
    }

    public byte[] toJson() {
        ObjectNode body = Json.object();
        body.put("nodeName", nodeName);
        ArrayNode names = body.putArray("hostNames");
        hostNames.forEach(names::add);
        ArrayNode ips = body.putArray("addresses");
        addresses.forEach(ips::add);
        return Json.write(body);
    }

    /**
     * @throws IllegalArgumentException when the body is not such an object
     */
    public static NodeCredentialsRequest fromJson(byte[] json) {
        JsonNode body;
        try {
            body = Json.read(json);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("the body is not JSON: " + e.getMessage(), e);
        }
        if (!body.isObject() || !body.path("nodeName").isTextual()) {
            throw new IllegalArgumentException("the body must be an object with a string nodeName");
        }
        return new NodeCredentialsRequest(body.get("nodeName").asText(), strings(body, "hostNames"), strings(body, "addresses"));
    }

    private static List<String> strings(JsonNode body, String field) {
        JsonNode values = body.path(field);
        if (values.isMissingNode() || values.isNull()) {
            return List.of();
        }
        if (!values.isArray()) {
            throw new IllegalArgumentException(field + " must be a list of strings");
        }
        List<String> result = new ArrayList<>();
        for (JsonNode value : values) {
            if (!value.isTextual()) {
                throw new IllegalArgumentException(field + " must be a list of strings");
            }
            result.add(value.asText());
        }
        return result;
    }
}
