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

    /** The order of {@link #toString()}, compared without building the strings (the proxier sorts on every sync). */
    @Override
    public int compareTo(ServicePortName other) {
        int length = length();
        int otherLength = other.length();
        for (int i = 0; i < Math.min(length, otherLength); i++) {
            char own = charAt(i);
            char others = other.charAt(i);
            if (own != others) {
                return own - others;
            }
        }
        return length - otherLength;
    }

    private int length() {
        return namespace.length() + 1 + name.length() + (port.isEmpty() ? 0 : 1 + port.length());
    }

    /** The character at {@code index} of {@link #toString()}. */
    private char charAt(int index) {
        if (index < namespace.length()) {
            return namespace.charAt(index);
        }
        index -= namespace.length();
        if (index == 0) {
            return '/';
        }
        index--;
        if (index < name.length()) {
            return name.charAt(index);
        }
        index -= name.length();
        return index == 0 ? ':' : port.charAt(index - 1);
    }

    @Override
    public String toString() {
        return port.isEmpty() ? namespace + "/" + name : namespace + "/" + name + ":" + port;
    }
}
