package io.k4j.kubelet.env;

import java.util.List;

/**
 * The addresses the downward API exposes, known only once the sandbox's network is set up: {@code status.podIP(s)}
 * and {@code status.hostIP(s)}. The first of each list is the primary one ({@code status.podIP},
 * {@code status.hostIP}); a list may be empty (the variable is then empty, as upstream).
 */
public record PodAddresses(List<String> podIps, List<String> hostIps) {
    public PodAddresses {
        podIps = List.copyOf(podIps);
        hostIps = List.copyOf(hostIps);
    }

    public String podIp() {
        return podIps.isEmpty() ? "" : podIps.get(0);
    }

    public String hostIp() {
        return hostIps.isEmpty() ? "" : hostIps.get(0);
    }
}
