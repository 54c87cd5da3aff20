package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

/**
 * One backend of a service port, from an EndpointSlice endpoint and the slice's port of the same name. Immutable.
 *
 * @param ip the endpoint address
 * @param port the target port
 * @param ready the endpoint's ready condition
 * @param serving the serving condition (ready, even while terminating)
 * @param terminating the terminating condition
 * @param local whether the endpoint runs on this proxy's node (its {@code nodeName} is the proxy's), for the
 *     {@code Local} traffic policies
 */
public record EndpointInfo(String ip, int port, boolean ready, boolean serving, boolean terminating, boolean local)
        implements Comparable<EndpointInfo> {
    public EndpointInfo {
        requireNonNull(ip, "ip is null");
    }

    /** An endpoint on another node (or of a proxy that does not know its node). */
    public EndpointInfo(String ip, int port, boolean ready, boolean serving, boolean terminating) {
        this(ip, port, ready, serving, terminating, false);
    }

    /** {@code ip:port} as upstream writes it into comments and hashes (IPv6 in brackets). */
    public String address() {
        return ip.contains(":") ? "[" + ip + "]:" + port : ip + ":" + port;
    }

    @Override
    public int compareTo(EndpointInfo other) {
        int byIp = ip.compareTo(other.ip);
        return byIp != 0 ? byIp : Integer.compare(port, other.port);
    }
}
