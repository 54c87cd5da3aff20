package io.k4j.kubelet.prober;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.List;

/**
 * Resolves a probe's or hook's port, a number or the name of one of the container's ports, as upstream. Stateless and
 * thread-safe.
 */
public final class ContainerPorts {
    private ContainerPorts() {}

    /**
     * The port number.
     *
     * @throws IllegalArgumentException with upstream's message when the name is unknown or the number out of range
     */
    public static int resolve(IntOrString port, Container container) {
        if (port == null) {
            throw new IllegalArgumentException("invalid port number: -1");
        }
        int number;
        if (port.getIntVal() != null) {
            number = port.getIntVal();
        } else if (port.getStrVal() != null) {
            number = byName(container, port.getStrVal());
        } else {
            throw new IllegalArgumentException("intOrString had no kind: " + port);
        }
        if (number > 0 && number < 65536) {
            return number;
        }
        throw new IllegalArgumentException("invalid port number: " + number);
    }

    private static int byName(Container container, String name) {
        List<ContainerPort> ports = container.getPorts() == null ? List.of() : container.getPorts();
        for (ContainerPort port : ports) {
            if (name.equals(port.getName())) {
                return port.getContainerPort();
            }
        }
        // Upstream's last resort: a number written as a string.
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("strconv.Atoi: parsing \"" + name + "\": invalid syntax", e);
        }
    }

    /** {@code host:port}, with brackets around an IPv6 host, as Go's {@code net.JoinHostPort}. */
    public static String joinHostPort(String host, int port) {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
