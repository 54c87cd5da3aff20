package io.k4j.kubelet.volume;

import io.fabric8.kubernetes.api.model.HostAlias;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/** The kubelet-managed {@code /etc/hosts} of a pod, as upstream writes it. Stateless and thread-safe. */
final class EtcHosts {
    static final String HEADER = "# Kubernetes-managed hosts file.\n";
    static final String HOST_NETWORK_HEADER = "# Kubernetes-managed hosts file (host network).\n";
    private static final int MAX_HOSTNAME_LENGTH = 63;

    private EtcHosts() {}

    /** The file for a pod on the pod network: localhost entries, the pod's IPs with its hostname, host aliases. */
    static String managed(List<String> podIps, String hostname, String domain, List<HostAlias> hostAliases) {
        StringBuilder content = new StringBuilder(HEADER)
                .append("127.0.0.1\tlocalhost\n")
                .append("::1\tlocalhost ip6-localhost ip6-loopback\n")
                .append("fe00::0\tip6-localnet\n")
                .append("fe00::0\tip6-mcastprefix\n")
                .append("fe00::1\tip6-allnodes\n")
                .append("fe00::2\tip6-allrouters\n");
        for (String ip : podIps) {
            if (domain.isEmpty()) {
                content.append(ip).append('\t').append(hostname).append('\n');
            } else {
                content.append(ip).append('\t').append(hostname).append('.').append(domain).append('\t').append(hostname).append('\n');
            }
        }
        return content.append(aliases(hostAliases)).toString();
    }

    /** The file for a host-network pod: the node's own hosts file (its header replaced) and the host aliases. */
    static String hostNetwork(String nodeHostsFile, List<HostAlias> hostAliases) {
        return HOST_NETWORK_HEADER + nodeHostsFile + aliases(hostAliases);
    }

    private static String aliases(List<HostAlias> hostAliases) {
        if (hostAliases == null || hostAliases.isEmpty()) {
            return "";
        }
        StringBuilder content = new StringBuilder("\n# Entries added by HostAliases.\n");
        for (HostAlias alias : hostAliases) {
            List<String> names = alias.getHostnames() == null ? List.of() : alias.getHostnames();
            content.append(alias.getIp()).append('\t').append(String.join("\t", names)).append('\n');
        }
        return content.toString();
    }

    /** The pod's hostname: spec.hostname, else its name cut to 63 characters without a trailing '-' or '.'. */
    static String hostname(Pod pod) {
        String hostname = pod.getSpec().getHostname();
        if (hostname != null && !hostname.isEmpty()) {
            return hostname;
        }
        String name = pod.getMetadata().getName();
        if (name.length() <= MAX_HOSTNAME_LENGTH) {
            return name;
        }
        String truncated = name.substring(0, MAX_HOSTNAME_LENGTH);
        int end = truncated.length();
        while (end > 0 && (truncated.charAt(end - 1) == '-' || truncated.charAt(end - 1) == '.')) {
            end--;
        }
        return truncated.substring(0, end);
    }

    /** The pod's domain: {@code <subdomain>.<namespace>.svc.<cluster domain>} when it has a subdomain, else empty. */
    static String domain(Pod pod, String clusterDomain) {
        String subdomain = pod.getSpec().getSubdomain();
        if (subdomain == null || subdomain.isEmpty()) {
            return "";
        }
        return subdomain + "." + pod.getMetadata().getNamespace() + ".svc." + clusterDomain;
    }
}
