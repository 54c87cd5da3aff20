package io.k4j.kubelet.prober;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HTTPHeader;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The request of an httpGet probe or hook, as upstream builds it: scheme (default http), host (default the pod's IP),
 * port (number or named container port), path, the user's headers, {@code User-Agent: kube-<purpose>/1.32} and
 * {@code Accept: *}{@code /*} unless the user set them.
 */
public record HttpGetRequest(URI url, String hostHeader, List<Map.Entry<String, String>> headers) {
    /** The Kubernetes minor version the User-Agent names, as upstream's {@code kube-probe/1.32}. */
    public static final String KUBERNETES_VERSION = "1.32";

    public HttpGetRequest {
        requireNonNull(url, "url is null");
        headers = List.copyOf(headers);
    }

    /**
     * Builds the request.
     *
     * @param purpose {@code probe} or {@code lifecycle}, for the User-Agent
     * @throws IllegalArgumentException when the port cannot be resolved or the URL is malformed
     */
    public static HttpGetRequest of(HTTPGetAction action, Container container, String podIp, String purpose) {
        String scheme = action.getScheme() == null || action.getScheme().isEmpty() ? "http" : action.getScheme().toLowerCase(Locale.ROOT);
        String host = action.getHost() == null || action.getHost().isEmpty() ? podIp : action.getHost();
        int port = ContainerPorts.resolve(action.getPort(), container);
        String path = action.getPath() == null ? "" : action.getPath();
        if (!path.isEmpty() && !path.startsWith("/")) {
            path = "/" + path;
        }
        URI url;
        try {
            url = new URI(scheme + "://" + ContainerPorts.joinHostPort(host, port) + path);
        } catch (URISyntaxException e) {
            try {
                url = new URI(scheme, null, host, port, path, null, null);
            } catch (URISyntaxException again) {
                throw new IllegalArgumentException("invalid URL for path " + path + ": " + again.getMessage(), again);
            }
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        String hostHeader = null;
        boolean userAgent = false;
        boolean accept = false;
        for (HTTPHeader header : action.getHttpHeaders() == null ? List.<HTTPHeader>of() : action.getHttpHeaders()) {
            String name = canonicalHeaderName(header.getName());
            String value = header.getValue() == null ? "" : header.getValue();
            switch (name) {
                case "Host" -> {
                    if (hostHeader == null) {
                        hostHeader = value;
                    }
                    continue;
                }
                case "User-Agent" -> userAgent = true;
                case "Accept" -> {
                    accept = true;
                    if (value.isEmpty()) {
                        // An empty Accept removes the header, as upstream.
                        continue;
                    }
                }
                default -> {
                }
            }
            headers.add(new AbstractMap.SimpleImmutableEntry<>(name, value));
        }
        if (!userAgent) {
            headers.add(new AbstractMap.SimpleImmutableEntry<>("User-Agent", "kube-" + purpose + "/" + KUBERNETES_VERSION));
        }
        if (!accept) {
            headers.add(new AbstractMap.SimpleImmutableEntry<>("Accept", "*/*"));
        }
        return new HttpGetRequest(url, hostHeader == null || hostHeader.isEmpty() ? null : hostHeader, headers);
    }

    /** Go's {@code CanonicalHeaderKey}: {@code x-custom-header} ▶ {@code X-Custom-Header}. */
    static String canonicalHeaderName(String name) {
        StringBuilder canonical = new StringBuilder(name.length());
        boolean upper = true;
        for (char character : name.toCharArray()) {
            if (character == ' ' || character > 0x7F) {
                return name;
            }
            canonical.append(upper ? Character.toUpperCase(character) : Character.toLowerCase(character));
            upper = character == '-';
        }
        return canonical.toString();
    }
}
