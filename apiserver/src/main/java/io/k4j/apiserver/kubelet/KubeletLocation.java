package io.k4j.apiserver.kubelet;

import static java.util.Objects.requireNonNull;

/** Where a node's kubelet serves HTTPS: its preferred address and {@code status.daemonEndpoints.kubeletEndpoint.Port}. */
public record KubeletLocation(String nodeName, String host, int port) {
    public KubeletLocation {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(host, "host is null");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("invalid kubelet port " + port);
        }
    }

    /** {@code host:port}, with an IPv6 address in brackets. */
    public String authority() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
