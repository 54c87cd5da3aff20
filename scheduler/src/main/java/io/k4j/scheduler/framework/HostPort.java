package io.k4j.scheduler.framework;

import static java.util.Objects.requireNonNull;

/**
 * A host port a pod asks for. An empty or {@code 0.0.0.0} address means every address of the node.
 *
 * @param ip the host IP, {@code 0.0.0.0} when unspecified
 * @param protocol TCP, UDP or SCTP
 * @param port the host port number
 */
public record HostPort(String ip, String protocol, int port) {
    public static final String ANY_IP = "0.0.0.0";

    public HostPort {
        requireNonNull(ip, "ip is null");
        requireNonNull(protocol, "protocol is null");
        if (ip.isEmpty()) {
            ip = ANY_IP;
        }
    }

    /** Whether the two ports cannot both be bound on one node. */
    public boolean conflictsWith(HostPort other) {
        return port == other.port && protocol.equals(other.protocol)
                && (ip.equals(other.ip) || ip.equals(ANY_IP) || other.ip.equals(ANY_IP));
    }
}
