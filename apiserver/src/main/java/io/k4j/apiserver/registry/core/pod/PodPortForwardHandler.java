package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.kubelet.KubeletLocation;
import io.k4j.apiserver.kubelet.KubeletResponse;
import io.k4j.apiserver.kubelet.UpgradeProxy;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.websocket.WebSockets;
import java.io.IOException;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code pods/portforward}: connects the client to {@code /portForward/<namespace>/<pod>} on the pod's kubelet. kubectl
 * 1.31+ tunnels its SPDY session in a WebSocket ({@code SPDY/3.1+portforward.k8s.io}): the tunnel is unwrapped and the
 * SPDY bytes go to the kubelet as a SPDY upgrade, as upstream's tunnelling handler does. A plain SPDY upgrade (kubectl's
 * fallback) or any other upgrade the kubelet understands is relayed unchanged.
 *
 * <p>Thread-safe.
 */
public final class PodPortForwardHandler implements SubresourceHandler {
    /** The prefix kubectl puts before each SPDY protocol it offers inside a WebSocket. */
    public static final String TUNNELING_PREFIX = "SPDY/3.1+";
    public static final String PORT_FORWARD_PROTOCOL = "portforward.k8s.io";
    private static final String RESOURCE = "pods/portforward";

    private final KubeletClient kubelets;

    public PodPortForwardHandler(KubeletClient kubelets) {
        this.kubelets = requireNonNull(kubelets, "kubelets is null");
    }

    @Override
    public String subresource() {
        return "portforward";
    }

    @Override
    public String apiVersion() {
        return "v1";
    }

    @Override
    public String kind() {
        return "PodPortForwardOptions";
    }

    @Override
    public boolean streaming() {
        return true;
    }

    @Override
    public void connect(Request request, HttpExchange exchange) throws IOException {
        PodConnections.requireGetOrPost(exchange, RESOURCE);
        List<Map.Entry<String, String>> parameters = new ArrayList<>();
        for (String port : exchange.query().getOrDefault("ports", List.of())) {
            parameters.add(new SimpleEntry<>("port", port));
        }
        ObjectNode pod = request.parent().get(request.namespace(), request.name());
        KubeletLocation location = kubelets.locate(PodConnections.nodeName(pod));
        String path = "/portForward/" + KubeletClient.pathSegment(request.namespace()) + "/" + KubeletClient.pathSegment(request.name())
                + KubeletClient.query(parameters);
        List<String> offered = WebSockets.isUpgradeRequest(exchange) ? WebSockets.offeredProtocols(exchange) : List.of();
        List<String> tunnelled = offered.stream()
                .filter(protocol -> protocol.startsWith(TUNNELING_PREFIX))
                .map(protocol -> protocol.substring(TUNNELING_PREFIX.length()))
                .toList();
        if (!tunnelled.isEmpty()) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            headers.put("Connection", List.of("Upgrade"));
            headers.put("Upgrade", List.of("SPDY/3.1"));
            headers.put("X-Stream-Protocol-Version", tunnelled);
            KubeletResponse response = PodConnections.upgrade(kubelets, location, path, headers, RESOURCE, request.name());
            String chosen = response.header("x-stream-protocol-version");
            UpgradeProxy.tunnel(exchange, TUNNELING_PREFIX + (chosen == null ? PORT_FORWARD_PROTOCOL : chosen), response);
        } else {
            PodConnections.relayUpgrade(exchange, kubelets, location, path, RESOURCE, request.name());
        }
    }
}
