package io.k4j.apiserver.registry.core.pod;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.apiserver.endpoints.HttpExchange;
import io.k4j.apiserver.kubelet.KubeletClient;
import io.k4j.apiserver.kubelet.KubeletLocation;
import io.k4j.apiserver.kubelet.KubeletResponse;
import io.k4j.apiserver.kubelet.StreamTranslator;
import io.k4j.apiserver.registry.generic.SubresourceHandler;
import io.k4j.apiserver.websocket.ChannelConnection;
import io.k4j.apiserver.websocket.ChannelProtocol;
import io.k4j.apiserver.websocket.WebSockets;
import java.io.IOException;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code pods/exec} and {@code pods/attach}: picks the container as upstream does and connects the client to
 * {@code /exec|/attach/<namespace>/<pod>/<container>} on the pod's kubelet. A WebSocket client (kubectl 1.30+ offers
 * {@code v5.channel.k8s.io}) is served by a {@link StreamTranslator} over SPDY to the kubelet; a SPDY client (kubectl's
 * fallback, older clients) is relayed to the kubelet unchanged.
 *
 * <p>Thread-safe.
 */
public final class PodStreamHandler implements SubresourceHandler {
    /** Upstream's preference when the client offers several (the client's order decides among these). */
    private static final List<ChannelProtocol> CHANNEL_PROTOCOLS = List.of(ChannelProtocol.V5, ChannelProtocol.V4, ChannelProtocol.V4_BASE64,
            ChannelProtocol.V1, ChannelProtocol.V1_BASE64);

    private final String subresource;
    private final KubeletClient kubelets;

    private PodStreamHandler(String subresource, KubeletClient kubelets) {
        this.subresource = subresource;
        this.kubelets = requireNonNull(kubelets, "kubelets is null");
    }

    public static PodStreamHandler exec(KubeletClient kubelets) {
        return new PodStreamHandler("exec", kubelets);
    }

    public static PodStreamHandler attach(KubeletClient kubelets) {
        return new PodStreamHandler("attach", kubelets);
    }

    @Override
    public String subresource() {
        return subresource;
    }

    @Override
    public String apiVersion() {
        return "v1";
    }

    @Override
    public String kind() {
        return subresource.equals("exec") ? "PodExecOptions" : "PodAttachOptions";
    }

    @Override
    public boolean streaming() {
        return true;
    }

    @Override
    public void connect(Request request, HttpExchange exchange) throws IOException {
        PodConnections.requireGetOrPost(exchange, "pods/" + subresource);
        boolean tty = PodConnections.flag(exchange, "tty");
        StreamTranslator.Streams streams = new StreamTranslator.Streams(PodConnections.flag(exchange, "stdin"),
                PodConnections.flag(exchange, "stdout"), PodConnections.flag(exchange, "stderr"), tty);
        if (!streams.stdin() && !streams.stdout() && !streams.stderr()) {
            throw StatusException.badRequest("you must specify at least 1 of stdin, stdout, stderr");
        }
        List<String> command = exchange.query().getOrDefault("command", List.of());
        if (subresource.equals("exec") && command.isEmpty()) {
            throw StatusException.badRequest("you must specify at least 1 command");
        }
        ObjectNode pod = request.parent().get(request.namespace(), request.name());
        String container = PodConnections.container(pod, exchange.queryParameter("container"));
        KubeletLocation location = kubelets.locate(PodConnections.nodeName(pod));
        List<Map.Entry<String, String>> parameters = new ArrayList<>();
        command.forEach(argument -> parameters.add(new SimpleEntry<>("command", argument)));
        if (streams.stdin()) {
            parameters.add(new SimpleEntry<>("input", "1"));
        }
        if (streams.stdout()) {
            parameters.add(new SimpleEntry<>("output", "1"));
        }
        if (streams.stderr()) {
            parameters.add(new SimpleEntry<>("error", "1"));
        }
        if (tty) {
            parameters.add(new SimpleEntry<>("tty", "1"));
        }
        String path = "/" + subresource + "/" + KubeletClient.pathSegment(request.namespace()) + "/" + KubeletClient.pathSegment(request.name())
                + "/" + KubeletClient.pathSegment(container) + KubeletClient.query(parameters);
        if (WebSockets.isUpgradeRequest(exchange)) {
            translate(exchange, location, path, streams);
        } else {
            PodConnections.relayUpgrade(exchange, kubelets, location, path, "pods/" + subresource, request.name());
        }
    }

    private void translate(HttpExchange exchange, KubeletLocation location, String path, StreamTranslator.Streams streams) throws IOException {
        Set<Integer> readable = streams.stdin() ? Set.of(ChannelConnection.STDIN, ChannelConnection.RESIZE) : Set.of(ChannelConnection.RESIZE);
        ChannelConnection client = ChannelConnection.accept(exchange, CHANNEL_PROTOCOLS, ChannelConnection.RESIZE + 1, readable);
        StreamTranslator translator = new StreamTranslator(client, streams);
        KubeletResponse response;
        try {
            response = kubelets.send(location, "POST", path, StreamTranslator.kubeletUpgradeHeaders());
        } catch (IOException e) {
            translator.fail("error dialing backend: " + e.getMessage(), "InternalError", 500);
            return;
        }
        if (response.status() != 101) {
            try (response) {
                StatusException error = PodConnections.kubeletError(response, "pods/" + subresource, path);
                translator.fail(error.getMessage(), error.reason().wireName(), error.code());
            }
            return;
        }
        translator.serve(response);
    }
}
