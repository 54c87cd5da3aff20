package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Optional;

/**
 * A port of a service or of an endpoint slice, as SRV records name it: {@code _<name>._<protocol>}.
 *
 * @param name the port's name; empty for the single unnamed port a service may have
 * @param protocol {@code TCP}, {@code UDP} or {@code SCTP}
 * @param port the port number
 */
public record ServicePort(Optional<String> name, String protocol, int port) {
    public ServicePort {
        requireNonNull(name, "name is null");
        requireNonNull(protocol, "protocol is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    /** True when {@code _<portLabel>._<protocolLabel>} (without the underscores, any case) names this port. */
    boolean matches(String portLabel, String protocolLabel) {
        return name.isPresent() && name.get().equalsIgnoreCase(portLabel) && protocol.toLowerCase(Locale.ROOT).equals(protocolLabel.toLowerCase(Locale.ROOT));
    }
}
