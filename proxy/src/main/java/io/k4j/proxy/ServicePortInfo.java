package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;

/**
 * What the proxy needs of one port of a Service: its virtual addresses and how traffic to them is balanced. Immutable.
 *
 * @param name the service port's name
 * @param protocol {@code TCP}, {@code UDP} or {@code SCTP}
 * @param clusterIp the ClusterIP (never empty or {@code None}: headless services are not proxied)
 * @param port the service port
 * @param nodePort the NodePort, 0 when the service has none
 * @param externalIps the service's spec.externalIPs
 * @param affinityTimeoutSeconds the ClientIP session affinity timeout, 0 when the service has no affinity
 * @param externalPolicyLocal whether traffic from outside (NodePort, external IPs) goes only to this node's endpoints
 *     ({@code externalTrafficPolicy: Local} on an externally accessible service)
 */
public record ServicePortInfo(ServicePortName name, String protocol, String clusterIp, int port, int nodePort,
        List<String> externalIps, int affinityTimeoutSeconds, boolean externalPolicyLocal) {
    public ServicePortInfo {
        requireNonNull(name, "name is null");
        requireNonNull(protocol, "protocol is null");
        requireNonNull(clusterIp, "clusterIp is null");
        externalIps = List.copyOf(externalIps);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** A service port with {@code externalTrafficPolicy: Cluster}. */
    public ServicePortInfo(ServicePortName name, String protocol, String clusterIp, int port, int nodePort,
            List<String> externalIps, int affinityTimeoutSeconds) {
        this(name, protocol, clusterIp, port, nodePort, externalIps, affinityTimeoutSeconds, false);
    }

    /** Whether traffic from outside the cluster reaches it: a NodePort or external IPs. */
    public boolean externallyAccessible() {
        return nodePort > 0 || !externalIps.isEmpty();
    }

    /** The protocol as iptables spells it ({@code tcp}, {@code udp}, {@code sctp}). */
    public String iptablesProtocol() {
        return protocol.toLowerCase(Locale.ROOT);
    }

    public boolean hasSessionAffinity() {
        return affinityTimeoutSeconds > 0;
    }
}
