package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

/**
 * One port of one Service, named as upstream's proxy names it: {@code namespace/name:port}, or {@code namespace/name}
 * when the port has no name (a single-port service). Immutable.
 */
public record ServicePortName(String namespace, String name, String port) implements Comparable<ServicePortName> {
    public ServicePortName {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(name, "name is null");
        requireNonNull(port, "port is null");
    }

    @Override
    public int compareTo(ServicePortName other) {
        return toString().compareTo(other.toString());
    }

    @Override
    public String toString() {
        return port.isEmpty() ? namespace + "/" + name : namespace + "/" + name + ":" + port;
    }
}
