package io.k4j.apiserver.registry.core.service;

/**
 * The ports NodePort services get ({@code --service-node-port-range}), both ends included. Thread-safe (immutable).
 */
public record NodePortRange(int first, int last) {
    public static final NodePortRange DEFAULT = new NodePortRange(30000, 32767);

    public NodePortRange {
        if (first < 1 || last > 65535 || first > last) {
            throw new IllegalArgumentException("bad node port range " + first + "-" + last);
        }
    }

    /** Parses upstream's forms {@code 30000-32767}, {@code 30000+2767} (base plus size) and a single port. */
    public static NodePortRange parse(String text) {
        try {
            int dash = text.indexOf('-');
            if (dash > 0) {
                return new NodePortRange(Integer.parseInt(text.substring(0, dash).trim()), Integer.parseInt(text.substring(dash + 1).trim()));
            }
            int plus = text.indexOf('+');
            if (plus > 0) {
                int base = Integer.parseInt(text.substring(0, plus).trim());
                return new NodePortRange(base, base + Integer.parseInt(text.substring(plus + 1).trim()));
            }
            int port = Integer.parseInt(text.trim());
            return new NodePortRange(port, port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--service-node-port-range must look like 30000-32767, got " + text, e);
        }
    }

    public int size() {
        return last - first + 1;
    }

    public boolean contains(long port) {
        return port >= first && port <= last;
    }

    /** As upstream prints the range in its messages, e.g. {@code 30000-32767}. */
    @Override
    public String toString() {
        return first + "-" + last;
    }
}
