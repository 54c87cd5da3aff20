package io.k4j.apiserver.kubelet;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.resource.GroupVersionResource;
import io.k4j.apiserver.registry.generic.Registry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * The apiserver's client towards kubelets, for the {@code pods/log}, {@code exec}, {@code attach} and
 * {@code portforward} subresources: finds a node's kubelet (its address of the first of
 * {@link #PREFERRED_ADDRESS_TYPES} it reports and {@code status.daemonEndpoints.kubeletEndpoint.Port}) and sends one
 * HTTP/1.1 request per TLS connection, presenting the apiserver's kubelet-client certificate and verifying the
 * kubelet's serving certificate (against the cluster CA, and that it names the address connected to), as upstream's
 * {@code --kubelet-certificate-authority} does. One connection per request keeps upgraded streams simple: a connection
 * that switched protocols is never reused.
 *
 * <p>Thread-safe.
 */
public final class KubeletClient {
    /** Upstream's kubeadm and k3s setting of {@code --kubelet-preferred-address-types}. */
    public static final List<String> PREFERRED_ADDRESS_TYPES = List.of("InternalIP", "ExternalIP", "Hostname");
    /** The kubelet port used when a node does not report one ({@code --kubelet-port}). */
    public static final int DEFAULT_KUBELET_PORT = 10250;

    private static final GroupVersionResource NODES = new GroupVersionResource("", "v1", "nodes");

    private final Registry registry;
    private final Supplier<SSLContext> tlsSource;
    private final Duration connectTimeout;
    private volatile SSLContext tls;

    /**
     * @param tls presents the apiserver's kubelet-client identity and trusts the CA that signs kubelet serving
     *     certificates; asked for on the first request (the identity may still be in the making at start-up)
     */
    public KubeletClient(Registry registry, Supplier<SSLContext> tls, Duration connectTimeout) {
        this.registry = requireNonNull(registry, "registry is null");
        this.tlsSource = requireNonNull(tls, "tls is null");
        this.connectTimeout = requireNonNull(connectTimeout, "connectTimeout is null");
    }

    private SSLContext tls() {
        SSLContext context = tls;
        if (context == null) {
            synchronized (this) {
                context = tls;
                if (context == null) {
                    context = requireNonNull(tlsSource.get(), "the kubelet client TLS context is null");
                    tls = context;
                }
            }
        }
        return context;
    }

    /**
     * Where the kubelet of {@code nodeName} listens.
     *
     * @throws StatusException 404 when the node does not exist, 503 when it reports no usable address
     */
    public KubeletLocation locate(String nodeName) {
        ObjectNode node = registry.require(NODES).get("", nodeName);
        JsonNode status = node.path("status");
        Optional<String> host = Optional.empty();
        for (String type : PREFERRED_ADDRESS_TYPES) {
            for (JsonNode address : status.path("addresses")) {
                if (address.path("type").asText().equals(type) && !address.path("address").asText().isEmpty()) {
                    host = Optional.of(address.path("address").asText());
                    break;
                }
            }
            if (host.isPresent()) {
                break;
            }
        }
        if (host.isEmpty()) {
            throw StatusException.serviceUnavailable("no preferred addresses found; known addresses: []");
        }
        int port = status.path("daemonEndpoints").path("kubeletEndpoint").path("Port").asInt(0);
        return new KubeletLocation(nodeName, host.get(), port > 0 ? port : DEFAULT_KUBELET_PORT);
    }

    /**
     * Sends a request without a body and reads the response head; the caller reads the rest and closes it.
     *
     * @param pathAndQuery the request target, already encoded (see {@link #query})
     * @param headers extra request headers (for an upgrade: {@code Connection}, {@code Upgrade} and the protocol's own)
     * @throws IOException when the kubelet cannot be reached or answers no valid HTTP
     */
    public KubeletResponse send(KubeletLocation location, String method, String pathAndQuery, Map<String, List<String>> headers) throws IOException {
        SSLSocket socket = (SSLSocket) tls().getSocketFactory().createSocket();
        try {
            SSLParameters parameters = socket.getSSLParameters();
            // The serving certificate must name the address we connect to (an IP SAN for an InternalIP).
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(parameters);
            socket.connect(new InetSocketAddress(location.host(), location.port()), (int) connectTimeout.toMillis());
            socket.setSoTimeout((int) connectTimeout.toMillis());
            socket.startHandshake();
            StringBuilder request = new StringBuilder();
            request.append(method).append(' ').append(pathAndQuery).append(" HTTP/1.1\r\n");
            request.append("Host: ").append(location.authority()).append("\r\n");
            boolean upgrade = headers.keySet().stream().anyMatch(name -> name.equalsIgnoreCase("upgrade"));
            if (!upgrade) {
                request.append("Connection: close\r\n");
            }
            headers.forEach((name, values) -> values.forEach(value -> request.append(name).append(": ").append(value).append("\r\n")));
            request.append("Content-Length: 0\r\n\r\n");
            OutputStream output = socket.getOutputStream();
            output.write(request.toString().getBytes(StandardCharsets.ISO_8859_1));
            output.flush();
            KubeletResponse response = KubeletResponse.read(socket);
            // Streams (follow, exec) may be silent for long; only connecting and the response head are timed.
            socket.setSoTimeout(0);
            return response;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Encodes query parameters in order ({@code ?a=1&b=2}), or an empty string when there are none. */
    public static String query(List<Map.Entry<String, String>> parameters) {
        if (parameters.isEmpty()) {
            return "";
        }
        return parameters.stream()
                .map(parameter -> encode(parameter.getKey()) + "=" + encode(parameter.getValue()))
                .collect(Collectors.joining("&", "?", ""));
    }

    /** Encodes one path segment. */
    public static String pathSegment(String segment) {
        return encode(segment).replace("+", "%20");
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }
}
