package io.k4j.apiserver.registry.core.pod;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.errors.StatusReason;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.kubelet.KubeletLocation;
import io.k4j.apiserver.kubelet.KubeletResponse;
import io.k4j.apiserver.kubelet.UpgradeProxy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the subresources that reach a pod's kubelet ({@code log}, {@code exec}, {@code attach}, {@code portforward})
 * share: upstream's container defaulting and messages, the node the pod runs on, query flags, the protocol switch on
 * the kubelet's connection, and turning a kubelet's error answer into a {@code Status}. Stateless.
 */
final class PodConnections {
    /** How much of a kubelet's error body becomes the message (upstream reads at most 4 KiB). */
    private static final int MAX_ERROR_BODY = 4096;

    private PodConnections() {}

    /**
     * The container a request means: the one asked for, which must exist in the pod, or the only container.
     *
     * @throws StatusException 400 with upstream's messages
     */
    static String container(ObjectNode pod, String requested) {
        String podName = pod.path("metadata").path("name").asText();
        if (requested == null || requested.isEmpty()) {
            JsonNode containers = pod.path("spec").path("containers");
            if (containers.size() == 1) {
                return containers.get(0).path("name").asText();
            }
            if (containers.isEmpty()) {
                throw StatusException.badRequest("a container name must be specified for pod " + podName);
            }
            throw StatusException.badRequest("a container name must be specified for pod " + podName + ", choose one of: "
                    + goList(allContainerNames(pod)));
        }
        if (!allContainerNames(pod).contains(requested)) {
            throw StatusException.badRequest("container " + requested + " is not valid for pod " + podName);
        }
        return requested;
    }

    /** Init containers, containers and ephemeral containers, in upstream's visiting order. */
    private static List<String> allContainerNames(ObjectNode pod) {
        List<String> names = new ArrayList<>();
        for (String field : List.of("initContainers", "containers", "ephemeralContainers")) {
            pod.path("spec").path(field).forEach(container -> names.add(container.path("name").asText()));
        }
        return names;
    }

    /** A string slice as Go's {@code %s} prints it: {@code [a b c]}. */
    static String goList(List<String> values) {
        return "[" + String.join(" ", values) + "]";
    }

    /**
     * The node the pod is bound to.
     *
     * @throws StatusException 400 when it is not scheduled yet
     */
    static String nodeName(ObjectNode pod) {
        String nodeName = pod.path("spec").path("nodeName").asText("");
        if (nodeName.isEmpty()) {
            throw StatusException.badRequest("pod " + pod.path("metadata").path("name").asText() + " does not have a host assigned");
        }
        return nodeName;
    }

    /**
     * A boolean query parameter as Go's {@code strconv.ParseBool} reads it; absent is false.
     *
     * @throws StatusException 400 for anything else
     */
    static boolean flag(HttpExchange exchange, String name) {
        String value = exchange.queryParameter(name);
        if (value == null) {
            return false;
        }
        return switch (value) {
            case "1", "t", "T", "true", "TRUE", "True" -> true;
            case "0", "f", "F", "false", "FALSE", "False", "" -> false;
            default -> throw StatusException.badRequest("invalid value for " + name + ": strconv.ParseBool: parsing \"" + value + "\": invalid syntax");
        };
    }

    /**
     * The Status for a kubelet's non-success answer, as upstream's response checker makes it: 400 and 500 keep their
     * meaning with the kubelet's text as message, anything else keeps its code.
     */
    static StatusException kubeletError(KubeletResponse response, String qualifiedResource, String name) throws IOException {
        String text = response.bodyText(MAX_ERROR_BODY);
        return switch (response.status()) {
            case 400 -> StatusException.badRequest(text);
            case 500 -> StatusException.internalError(text);
            case 401 -> new StatusException(StatusReason.UNAUTHORIZED, 401, text, name, "", qualifiedResource, List.of(), null);
            case 403 -> new StatusException(StatusReason.FORBIDDEN, 403, text, name, "", qualifiedResource, List.of(), null);
            case 404 -> new StatusException(StatusReason.NOT_FOUND, 404, text, name, "", qualifiedResource, List.of(), null);
            default -> new StatusException(response.status() >= 500 ? StatusReason.INTERNAL_ERROR : StatusReason.BAD_REQUEST, response.status(),
                    "the server responded with the status code " + response.status() + " but did not return more information ("
                            + qualifiedResource.toLowerCase(Locale.ROOT) + " " + name + "): " + text, name, "", qualifiedResource, List.of(), null);
        };
    }

    /**
     * Refuses what the streaming subresources do not serve.
     *
     * @throws StatusException 405 unless the method is GET or POST (the verbs kubectl's clients use)
     */
    static void requireGetOrPost(HttpExchange exchange, String qualifiedResource) {
        if (!exchange.method().equals("GET") && !exchange.method().equals("POST")) {
            throw StatusException.methodNotSupported("", qualifiedResource, exchange.method().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * Relays the client's own upgrade (SPDY) to the kubelet unchanged, both ways until either side ends.
     *
     * @throws StatusException 400 when the request asks for no upgrade at all, as upstream's
     */
    static void relayUpgrade(HttpExchange exchange, KubeletClient kubelets, KubeletLocation location, String path, String qualifiedResource, String name)
            throws IOException {
        if (exchange.header("upgrade") == null) {
            throw StatusException.badRequest("Upgrade request required");
        }
        UpgradeProxy.relay(exchange, upgrade(kubelets, location, path, UpgradeProxy.upgradeHeaders(exchange), qualifiedResource, name));
    }

    /**
     * Asks the kubelet to switch protocols on {@code path}; the answer is the switched connection.
     *
     * @throws StatusException 500 when the kubelet cannot be reached, or the kubelet's refusal as a Status
     */
    static KubeletResponse upgrade(KubeletClient kubelets, KubeletLocation location, String path, Map<String, List<String>> headers, String qualifiedResource,
            String name) throws IOException {
        KubeletResponse response;
        try {
            response = kubelets.send(location, "POST", path, headers);
        } catch (IOException e) {
            throw StatusException.internalError("error dialing backend: " + e.getMessage());
        }
        if (response.status() != 101) {
            try (response) {
                throw kubeletError(response, qualifiedResource, name);
            }
        }
        return response;
    }
}
