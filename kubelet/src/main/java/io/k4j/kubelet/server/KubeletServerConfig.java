package io.k4j.kubelet.server;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * How the kubelet server listens.
 *
 * @param nodeName the node whose {@code nodes/<subresource>} requests are authorized
 * @param bindAddress the address to listen on (upstream's {@code --address}, all addresses by default)
 * @param port the port ({@code --port}, {@link #DEFAULT_PORT}); 0 picks a free one (tests)
 * @param tls presents the node's serving certificate and trusts the cluster CA for client certificates
 * @param followRecheck how often a log follower rechecks its file and container without a change notice
 */
public record KubeletServerConfig(String nodeName, InetAddress bindAddress, int port, SSLContext tls, Duration followRecheck) {
    /**
     * Upstream's kubelet port. The node's {@code status.daemonEndpoints.kubeletEndpoint.Port} must carry the port
     * actually used, since the apiserver finds the kubelet there.
     */
    public static final int DEFAULT_PORT = 10250;

    public KubeletServerConfig {
        requireNonNull(nodeName, "nodeName is null");
        requireNonNull(bindAddress, "bindAddress is null");
        requireNonNull(tls, "tls is null");
        requireNonNull(followRecheck, "followRecheck is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("invalid port " + port);
        }
    }
}
