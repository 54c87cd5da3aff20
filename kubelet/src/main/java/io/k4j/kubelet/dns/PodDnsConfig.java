package io.k4j.kubelet.dns;

import static java.util.Objects.requireNonNull;

import io.k4j.kubelet.cri.v1.DNSConfig;
import java.util.List;

/**
 * A pod's resolver configuration, as the CRI's {@code DNSConfig} carries it to the runtime (which writes the sandbox's
 * {@code /etc/resolv.conf} from it). Immutable.
 */
public record PodDnsConfig(List<String> servers, List<String> searches, List<String> options) {
    public PodDnsConfig {
        servers = List.copyOf(requireNonNull(servers, "servers is null"));
        searches = List.copyOf(requireNonNull(searches, "searches is null"));
        options = List.copyOf(requireNonNull(options, "options is null"));
    }

    /** The CRI message for {@code PodSandboxConfig.dns_config}. */
    public DNSConfig toCri() {
        return DNSConfig.newBuilder().addAllServers(servers).addAllSearches(searches).addAllOptions(options).build();
    }

    /** The resolv.conf text a runtime writes for this configuration, as containerd's CRI plugin does. */
    public String resolvConf() {
        StringBuilder text = new StringBuilder();
        if (!searches.isEmpty()) {
            text.append("search ").append(String.join(" ", searches)).append('\n');
        }
        servers.forEach(server -> text.append("nameserver ").append(server).append('\n'));
        if (!options.isEmpty()) {
            text.append("options ").append(String.join(" ", options)).append('\n');
        }
        return text.toString();
    }
}
