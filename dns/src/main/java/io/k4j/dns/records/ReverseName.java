package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * What an IP address maps back to (PTR): a service's own name for its cluster IP, or
 * {@code <endpoint>.<service>.<namespace>.svc.<zone>} for an endpoint address.
 */
public record ReverseName(String namespace, String service, Optional<String> endpointLabel) {
    public ReverseName {
        requireNonNull(namespace, "namespace is null");
        requireNonNull(service, "service is null");
        requireNonNull(endpointLabel, "endpointLabel is null");
    }
}
