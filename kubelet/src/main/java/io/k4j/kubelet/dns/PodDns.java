package io.k4j.kubelet.dns;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodDNSConfig;
import io.fabric8.kubernetes.api.model.PodDNSConfigOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Computes a pod's resolver configuration from its {@code dnsPolicy} and {@code dnsConfig}, the kubelet's
 * {@code --cluster-dns}/{@code --cluster-domain} and the node's resolv.conf, as upstream's kubelet does:
 * <ul>
 *   <li>{@code ClusterFirst} (not host network) and {@code ClusterFirstWithHostNet}: the cluster DNS servers only,
 *       searches {@code <ns>.svc.<domain> svc.<domain> <domain>} then the host's, {@code options ndots:5}; without
 *       cluster DNS the pod falls back to {@code Default} with a {@code MissingClusterDNS} warning;</li>
 *   <li>{@code Default}, and {@code ClusterFirst} on the host network: the node's resolv.conf (or {@code 127.0.0.1}
 *       and search {@code .} when the kubelet has none);</li>
 *   <li>{@code None}: nothing but the pod's {@code dnsConfig}.</li>
 * </ul>
 * The pod's {@code dnsConfig} is appended (duplicates dropped, its options overriding same-named ones); then the
 * limits apply: 3 name servers, 32 search paths, 2048 characters in the search line, no path over 253 characters,
 * each cut reported as a {@code DNSConfigForming} warning with upstream's message. Pure and thread-safe.
 */
public final class PodDns {
    /** Upstream's limits (from glibc's resolver). */
    public static final int MAX_NAMESERVERS = 3;
    public static final int MAX_SEARCH_PATHS = 32;
    public static final int MAX_SEARCH_LIST_CHARS = 2048;
    private static final int MAX_DOMAIN_LENGTH = 253;
    private static final List<String> CLUSTER_OPTIONS = List.of("ndots:5");

    private PodDns() {}

    /** The kubelet's cluster DNS flags: {@code --cluster-dns} (IPs, possibly none) and {@code --cluster-domain}. */
    public record ClusterDnsSettings(List<String> clusterDns, String clusterDomain) {
        public ClusterDnsSettings {
            clusterDns = List.copyOf(requireNonNull(clusterDns, "clusterDns is null"));
            requireNonNull(clusterDomain, "clusterDomain is null");
        }
    }

    /** An event the kubelet records as a Warning: reason {@code DNSConfigForming} or {@code MissingClusterDNS}. */
    public record Warning(String reason, String message) {
        public Warning {
            requireNonNull(reason, "reason is null");
            requireNonNull(message, "message is null");
        }
    }

    /** The pod's configuration and the warnings computing it raised (to record on the pod). */
    public record Result(PodDnsConfig config, List<Warning> warnings) {
        public Result {
            requireNonNull(config, "config is null");
            warnings = List.copyOf(requireNonNull(warnings, "warnings is null"));
        }
    }

    /**
     * @param host the node's resolv.conf; empty when the kubelet runs with {@code --resolv-conf=""}
     * @throws IllegalArgumentException for a dnsPolicy the apiserver would have rejected ({@code invalid DNSPolicy=...})
     */
    public static Result configure(Pod pod, ClusterDnsSettings cluster, Optional<HostResolvConf> host) {
        requireNonNull(pod, "pod is null");
        requireNonNull(cluster, "cluster is null");
        requireNonNull(host, "host is null");
        List<Warning> warnings = new ArrayList<>();
        HostResolvConf hostConf = host.orElseGet(() -> new HostResolvConf(List.of(), List.of(), List.of()));
        List<String> servers = new ArrayList<>(hostConf.nameservers());
        List<String> searches = new ArrayList<>(hostConf.searches());
        List<String> options = new ArrayList<>(hostConf.options());

        Mode mode = mode(pod);
        if (mode == Mode.CLUSTER && cluster.clusterDns().isEmpty()) {
            warnings.add(new Warning("MissingClusterDNS", "pod: \"" + podName(pod) + "\". kubelet does not have ClusterDNS IP configured and "
                    + "cannot create Pod using \"ClusterFirst\" policy. Falling back to \"Default\" policy."));
            mode = Mode.HOST;
        }
        switch (mode) {
            case NONE -> {
                servers.clear();
                searches.clear();
                options.clear();
            }
            case CLUSTER -> {
                // The cluster DNS forwards what it does not know to the node's resolvers, so it is the only server.
                servers = new ArrayList<>(cluster.clusterDns());
                searches = clusterSearches(pod, cluster.clusterDomain(), hostConf.searches());
                options = new ArrayList<>(CLUSTER_OPTIONS);
            }
            case HOST -> {
                if (host.isEmpty()) {
                    // No resolv.conf: the resolver's own default (the local machine), spelled out.
                    servers = new ArrayList<>(List.of("127.0.0.1"));
                    searches = new ArrayList<>(List.of("."));
                }
            }
        }

        PodDNSConfig podConfig = pod.getSpec() == null ? null : pod.getSpec().getDnsConfig();
        if (podConfig != null) {
            servers = withoutDuplicates(servers, podConfig.getNameservers());
            searches = withoutDuplicates(searches, podConfig.getSearches());
            options = mergeOptions(options, podConfig.getOptions());
        }

        if (servers.size() > MAX_NAMESERVERS) {
            servers = new ArrayList<>(servers.subList(0, MAX_NAMESERVERS));
            warnings.add(new Warning("DNSConfigForming",
                    "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: " + String.join(" ", servers)));
        }
        searches = fitSearches(searches, warnings);
        return new Result(new PodDnsConfig(servers, searches, options), warnings);
    }

    private enum Mode { NONE, CLUSTER, HOST }

    private static Mode mode(Pod pod) {
        String policy = pod.getSpec() == null || pod.getSpec().getDnsPolicy() == null ? "ClusterFirst" : pod.getSpec().getDnsPolicy();
        boolean hostNetwork = pod.getSpec() != null && Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
        return switch (policy) {
            case "None" -> Mode.NONE;
            case "ClusterFirstWithHostNet" -> Mode.CLUSTER;
            // A host-network pod shares the node's resolver unless it asks for ClusterFirstWithHostNet.
            case "ClusterFirst" -> hostNetwork ? Mode.HOST : Mode.CLUSTER;
            case "Default" -> Mode.HOST;
            default -> throw new IllegalArgumentException("invalid DNSPolicy=" + policy);
        };
    }

    private static List<String> clusterSearches(Pod pod, String clusterDomain, List<String> hostSearches) {
        if (clusterDomain.isEmpty()) {
            return new ArrayList<>(hostSearches);
        }
        String namespace = pod.getMetadata() == null || pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
        List<String> searches = new ArrayList<>(List.of(namespace + ".svc." + clusterDomain, "svc." + clusterDomain, clusterDomain));
        searches.addAll(hostSearches);
        return withoutDuplicates(searches, List.of());
    }

    private static List<String> fitSearches(List<String> searches, List<Warning> warnings) {
        boolean exceeded = false;
        List<String> fitted = new ArrayList<>(searches);
        if (fitted.size() > MAX_SEARCH_PATHS) {
            fitted = new ArrayList<>(fitted.subList(0, MAX_SEARCH_PATHS));
            exceeded = true;
        }
        // Some resolvers (glibc 2.28) abort on a search path longer than a domain name may be.
        if (fitted.removeIf(search -> search.length() > MAX_DOMAIN_LENGTH)) {
            exceeded = true;
        }
        int lineLength = String.join(" ", fitted).length();
        if (lineLength > MAX_SEARCH_LIST_CHARS) {
            while (!fitted.isEmpty() && lineLength > MAX_SEARCH_LIST_CHARS) {
                lineLength -= fitted.removeLast().length() + 1;
            }
            exceeded = true;
        }
        if (exceeded) {
            warnings.add(new Warning("DNSConfigForming",
                    "Search Line limits were exceeded, some search paths have been omitted, the applied search line is: " + String.join(" ", fitted)));
        }
        return fitted;
    }

    private static List<String> withoutDuplicates(List<String> first, List<String> second) {
        LinkedHashSet<String> merged = new LinkedHashSet<>(first);
        if (second != null) {
            merged.addAll(second);
        }
        return new ArrayList<>(merged);
    }

    /** Options as {@code name} or {@code name:value}; the pod's replace same-named ones and keep their place. */
    private static List<String> mergeOptions(List<String> existing, List<PodDNSConfigOption> podOptions) {
        Map<String, String> merged = new LinkedHashMap<>();
        for (String option : existing) {
            int colon = option.indexOf(':');
            merged.put(colon < 0 ? option : option.substring(0, colon), colon < 0 ? "" : option.substring(colon + 1));
        }
        if (podOptions != null) {
            for (PodDNSConfigOption option : podOptions) {
                merged.put(option.getName(), option.getValue() == null ? "" : option.getValue());
            }
        }
        List<String> options = new ArrayList<>();
        merged.forEach((name, value) -> options.add(value.isEmpty() ? name : name + ":" + value));
        return options;
    }

    private static String podName(Pod pod) {
        if (pod.getMetadata() == null) {
            return "";
        }
        return pod.getMetadata().getName() + "_" + pod.getMetadata().getNamespace() + "(" + pod.getMetadata().getUid() + ")";
    }
}
