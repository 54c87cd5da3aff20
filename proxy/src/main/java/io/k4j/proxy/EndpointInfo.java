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
 */
public record EndpointInfo(String ip, int port, boolean ready, boolean serving, boolean terminating)
        implements Comparable<EndpointInfo> {
    public EndpointInfo {
        requireNonNull(ip, "ip is null");
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
