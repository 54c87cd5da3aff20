package io.k4j.proxy;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Turns services and their endpoints into the rules of upstream's iptables proxier, as a pure function: the same
 * input always gives the same text, so a sync can compare it with what was applied. Layout (nat table):
 * PREROUTING/OUTPUT ▶ KUBE-SERVICES ▶ (ClusterIP match) KUBE-SVC-&lt;hash&gt; ▶ (random probability or ClientIP
 * affinity) KUBE-SEP-&lt;hash&gt; ▶ DNAT; NodePorts and external IPs go through KUBE-EXT-&lt;hash&gt;, which marks for
 * masquerade and jumps to the service chain, or, for {@code externalTrafficPolicy: Local}, sends pods and the node
 * itself to the service chain and everything else unmasqueraded to KUBE-SVL-&lt;hash&gt; over this node's endpoints
 * (dropped in the filter table when it has none); KUBE-POSTROUTING masquerades what KUBE-MARK-MASQ marked. The filter
 * table rejects traffic to services without endpoints so clients fail fast instead of timing out. Thread-safe.
 */
public final class RuleGenerator {
    public static final String KUBE_SERVICES = "KUBE-SERVICES";
    public static final String KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
    public static final String KUBE_NODEPORTS = "KUBE-NODEPORTS";
    public static final String KUBE_POSTROUTING = "KUBE-POSTROUTING";
    public static final String KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
    public static final String KUBE_FORWARD = "KUBE-FORWARD";
    /** Upstream's default {@code --iptables-masquerade-bit} 14. */
    public static final String MASQUERADE_MARK = "0x4000";

    private static final String NODE_PORTS_JUMP = "-A " + KUBE_SERVICES + " "
            + comment("kubernetes service nodeports; NOTE: this must be the last rule in this chain")
            + " -m addrtype --dst-type LOCAL -j " + KUBE_NODEPORTS;
    // The fixed chains are the same lists in every generation, so comparing them with what was applied is free.
    private static final List<String> POSTROUTING_RULES = List.of(
            "-A " + KUBE_POSTROUTING + " -m mark ! --mark " + MASQUERADE_MARK + "/" + MASQUERADE_MARK + " -j RETURN",
            // Clear the mark so a packet re-traversing the network stack is not masqueraded twice.
            "-A " + KUBE_POSTROUTING + " -j MARK --xor-mark " + MASQUERADE_MARK,
            "-A " + KUBE_POSTROUTING + " " + comment("kubernetes service traffic requiring SNAT") + " -j MASQUERADE --random-fully");
    private static final List<String> MARK_MASQ_RULES = List.of("-A " + KUBE_MARK_MASQ + " -j MARK --or-mark " + MASQUERADE_MARK);
    private static final List<String> FORWARD_RULES = List.of(
            "-A " + KUBE_FORWARD + " -m conntrack --ctstate INVALID -j DROP",
            "-A " + KUBE_FORWARD + " " + comment("kubernetes forwarding rules") + " -m mark --mark " + MASQUERADE_MARK + "/"
                    + MASQUERADE_MARK + " -j ACCEPT",
            "-A " + KUBE_FORWARD + " " + comment("kubernetes forwarding conntrack rule")
                    + " -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT");

    private final Optional<String> clusterCidr;

    /**
     * @param clusterCidr the pod CIDR; traffic to a ClusterIP from outside it is masqueraded so replies come back
     *                    through this node (empty: never, as upstream without {@code --cluster-cidr})
     */
    public RuleGenerator(Optional<String> clusterCidr) {
        this.clusterCidr = requireNonNull(clusterCidr, "clusterCidr is null");
    }

    /** The rules for {@code services}, each with the endpoints of its port (missing or empty: no endpoints). */
    public IptablesRules generate(Map<ServicePortName, ServicePortInfo> services,
            Map<ServicePortName, List<EndpointInfo>> endpoints) {
        SortedMap<ServicePortName, ServicePortRules> rules = new TreeMap<>();
        SortedMap<String, List<String>> serviceChains = new TreeMap<>();
        for (ServicePortInfo service : services.values()) {
            ServicePortRules serviceRules = serviceRules(service, endpoints.getOrDefault(service.name(), List.of()));
            rules.put(service.name(), serviceRules);
            serviceChains.putAll(serviceRules.chains());
        }
        return assemble(rules.values(), serviceChains);
    }

    /**
     * The rules of one service port with {@code endpoints} (all of them, usable or not): its own chains and its lines
     * in the shared chains. They depend on nothing else, so they stay valid as long as the service port and its
     * endpoints do.
     */
    public ServicePortRules serviceRules(ServicePortInfo service, List<EndpointInfo> endpoints) {
        Fragment fragment = new Fragment();
        List<EndpointInfo> usable = usableEndpoints(endpoints);
        if (usable.isEmpty()) {
            rejectWithoutEndpoints(service, fragment);
        } else {
            writeService(service, endpoints, usable, fragment);
        }
        return new ServicePortRules(service, endpoints, usable, fragment.natServices, fragment.natNodePorts,
                fragment.filterServices, fragment.filterExternalServices, fragment.chains);
    }

    /**
     * The tables made of the fixed chains and the rules of each service port: the shared chains get each service
     * port's lines in {@code rules}' order (by name, for an output that does not depend on map iteration order), and
     * the service ports' own chains ({@code serviceChains}, all of theirs) follow the fixed ones in name order.
     */
    IptablesRules assemble(Collection<ServicePortRules> rules, SortedMap<String, List<String>> serviceChains) {
        List<String> natServices = new ArrayList<>();
        List<String> natNodePorts = new ArrayList<>();
        List<String> filterServices = new ArrayList<>();
        List<String> filterExternalServices = new ArrayList<>();
        for (ServicePortRules serviceRules : rules) {
            natServices.addAll(serviceRules.natServices());
            natNodePorts.addAll(serviceRules.natNodePorts());
            filterServices.addAll(serviceRules.filterServices());
            filterExternalServices.addAll(serviceRules.filterExternalServices());
        }
        natServices.add(NODE_PORTS_JUMP);

        Map<String, List<String>> filter = new LinkedHashMap<>();
        filter.put(KUBE_SERVICES, filterServices);
        filter.put(KUBE_EXTERNAL_SERVICES, filterExternalServices);
        filter.put(KUBE_FORWARD, FORWARD_RULES);
        Map<String, List<String>> nat = new LinkedHashMap<>();
        nat.put(KUBE_SERVICES, natServices);
        nat.put(KUBE_NODEPORTS, natNodePorts);
        nat.put(KUBE_POSTROUTING, POSTROUTING_RULES);
        nat.put(KUBE_MARK_MASQ, MARK_MASQ_RULES);
        nat.putAll(serviceChains);
        return new IptablesRules(new IptablesRules.Table("nat", nat), new IptablesRules.Table("filter", filter));
    }

    /**
     * Ready endpoints; when none is ready, the serving terminating ones (upstream's fallback, so connections drain
     * during a rolling update instead of being refused). Sorted for a stable output.
     */
    static List<EndpointInfo> usableEndpoints(List<EndpointInfo> endpoints) {
        List<EndpointInfo> ready = endpoints.stream().filter(EndpointInfo::ready).sorted().distinct().toList();
        if (!ready.isEmpty()) {
            return ready;
        }
        return endpoints.stream().filter(endpoint -> endpoint.serving() && endpoint.terminating()).sorted().distinct().toList();
    }

    private static void rejectWithoutEndpoints(ServicePortInfo service, Fragment fragment) {
        String protocol = service.iptablesProtocol();
        String comment = comment(service.name() + " has no endpoints");
        fragment.filterServices.add(rule(KUBE_SERVICES, comment + " -m " + protocol + " -p " + protocol + " -d " + service.clusterIp()
                + " --dport " + service.port() + " -j REJECT"));
        for (String externalIp : service.externalIps()) {
            fragment.filterExternalServices.add(rule(KUBE_EXTERNAL_SERVICES, comment + " -m " + protocol + " -p " + protocol + " -d " + externalIp
                    + " --dport " + service.port() + " -j REJECT"));
        }
        if (service.nodePort() > 0) {
            fragment.filterExternalServices.add(rule(KUBE_EXTERNAL_SERVICES, comment + " -m addrtype --dst-type LOCAL -m " + protocol
                    + " -p " + protocol + " --dport " + service.nodePort() + " -j REJECT"));
        }
    }

    private void writeService(ServicePortInfo service, List<EndpointInfo> allEndpoints, List<EndpointInfo> endpoints,
            Fragment fragment) {
        SortedMap<String, List<String>> serviceChains = fragment.chains;
        String protocol = service.iptablesProtocol();
        String name = service.name().toString();
        String serviceChain = serviceChainName(service.name(), protocol);
        String matchClusterIp = " -m " + protocol + " -p " + protocol + " -d " + service.clusterIp() + " --dport " + service.port();
        List<String> serviceRules = new ArrayList<>();

        fragment.natServices.add(rule(KUBE_SERVICES, comment(name + " cluster IP") + matchClusterIp + " -j " + serviceChain));
        clusterCidr.ifPresent(cidr -> serviceRules.add("-A " + serviceChain + " " + comment(name + " cluster IP")
                + matchClusterIp + " ! -s " + cidr + " -j " + KUBE_MARK_MASQ));
        serviceRules.addAll(balancingRules(service, serviceChain, endpoints));
        serviceChains.put(serviceChain, serviceRules);
        Set<EndpointInfo> written = new TreeSet<>(endpoints);

        if (service.externallyAccessible()) {
            // externalTrafficPolicy Local: outside traffic only to this node's endpoints, keeping the client's address.
            List<EndpointInfo> localEndpoints = service.externalPolicyLocal()
                    ? usableEndpoints(allEndpoints.stream().filter(EndpointInfo::local).toList())
                    : List.of();
            boolean hasExternalEndpoints = !service.externalPolicyLocal() || !localEndpoints.isEmpty();
            String externalChain = externalChainName(service.name(), protocol);
            if (hasExternalEndpoints) {
                for (String externalIp : service.externalIps()) {
                    fragment.natServices.add(rule(KUBE_SERVICES, comment(name + " external IP") + " -m " + protocol + " -p "
                            + protocol + " -d " + externalIp + " --dport " + service.port() + " -j " + externalChain));
                }
                if (service.nodePort() > 0) {
                    fragment.natNodePorts.add(rule(KUBE_NODEPORTS, comment(name) + " -m " + protocol + " -p " + protocol
                            + " --dport " + service.nodePort() + " -j " + externalChain));
                }
            } else {
                // Endpoints elsewhere only: drop (not reject) outside traffic, so that a load balancer's health
                // check sees this node as down and the client retries on another.
                String noLocal = comment(name + " has no local endpoints");
                for (String externalIp : service.externalIps()) {
                    fragment.filterExternalServices.add(rule(KUBE_EXTERNAL_SERVICES, noLocal + " -m " + protocol + " -p "
                            + protocol + " -d " + externalIp + " --dport " + service.port() + " -j DROP"));
                }
                if (service.nodePort() > 0) {
                    fragment.filterExternalServices.add(rule(KUBE_EXTERNAL_SERVICES, noLocal + " -m addrtype --dst-type LOCAL -m "
                            + protocol + " -p " + protocol + " --dport " + service.nodePort() + " -j DROP"));
                }
            }
            List<String> externalRules = new ArrayList<>();
            if (!service.externalPolicyLocal()) {
                // Traffic from outside reaches a pod that may be on another node; masquerade so the reply returns here.
                externalRules.add("-A " + externalChain + " " + comment("masquerade traffic for " + name + " external destinations")
                        + " -j " + KUBE_MARK_MASQ);
                externalRules.add("-A " + externalChain + " -j " + serviceChain);
            } else {
                // Pods reaching an external destination are treated as if they went out to a load balancer and came
                // back: no traffic policy for them.
                clusterCidr.ifPresent(cidr -> externalRules.add("-A " + externalChain + " "
                        + comment("pod traffic for " + name + " external destinations") + " -s " + cidr + " -j " + serviceChain));
                // The node itself uses the node's address as source, which must be masqueraded, and may use any endpoint.
                externalRules.add("-A " + externalChain + " " + comment("masquerade LOCAL traffic for " + name + " external destinations")
                        + " -m addrtype --src-type LOCAL -j " + KUBE_MARK_MASQ);
                externalRules.add("-A " + externalChain + " " + comment("route LOCAL traffic for " + name + " external destinations")
                        + " -m addrtype --src-type LOCAL -j " + serviceChain);
                if (!localEndpoints.isEmpty()) {
                    String localChain = localChainName(service.name(), protocol);
                    externalRules.add("-A " + externalChain + " -j " + localChain);
                    serviceChains.put(localChain, balancingRules(service, localChain, localEndpoints));
                    written.addAll(localEndpoints);
                }
            }
            serviceChains.put(externalChain, externalRules);
        }

        for (EndpointInfo endpoint : written) {
            String endpointChain = endpointChainName(service.name(), protocol, endpoint.address());
            String affinity = service.hasSessionAffinity() ? " -m recent --name " + endpointChain + " --set" : "";
            serviceChains.put(endpointChain, List.of(
                    // Hairpin: a pod reaching itself through its service must see the node as source, or it would
                    // answer itself directly and the connection would not match.
                    "-A " + endpointChain + " " + comment(name) + " -s " + endpoint.ip() + " -j " + KUBE_MARK_MASQ,
                    "-A " + endpointChain + " " + comment(name) + affinity + " -m " + protocol + " -p " + protocol
                            + " -j DNAT --to-destination " + endpoint.address()));
        }
    }

    /**
     * The rules of a policy chain ({@code KUBE-SVC} or {@code KUBE-SVL}) choosing one of {@code endpoints}: ClientIP
     * affinity first, then random probabilities that pick each remaining endpoint evenly.
     */
    private static List<String> balancingRules(ServicePortInfo service, String chain, List<EndpointInfo> endpoints) {
        String protocol = service.iptablesProtocol();
        String name = service.name().toString();
        List<String> endpointChains = endpoints.stream()
                .map(endpoint -> endpointChainName(service.name(), protocol, endpoint.address()))
                .toList();
        List<String> rules = new ArrayList<>();
        if (service.hasSessionAffinity()) {
            for (int i = 0; i < endpoints.size(); i++) {
                rules.add("-A " + chain + " " + comment(name + " -> " + endpoints.get(i).address())
                        + " -m recent --name " + endpointChains.get(i) + " --rcheck --seconds "
                        + service.affinityTimeoutSeconds() + " --reap -j " + endpointChains.get(i));
            }
        }
        for (int i = 0; i < endpoints.size(); i++) {
            int remaining = endpoints.size() - i;
            String statistic = remaining > 1
                    ? " -m statistic --mode random --probability " + probability(remaining)
                    : "";
            rules.add("-A " + chain + " " + comment(name + " -> " + endpoints.get(i).address())
                    + statistic + " -j " + endpointChains.get(i));
        }
        return rules;
    }

    /** The probability that picks one of {@code remaining} endpoints evenly, formatted as upstream ({@code %0.10f}). */
    static String probability(int remaining) {
        return String.format(Locale.ROOT, "%.10f", 1.0 / remaining);
    }

    /** {@code KUBE-SVC-} and 16 characters of base32(sha256(servicePortName + protocol)), as upstream. */
    public static String serviceChainName(ServicePortName name, String protocol) {
        return "KUBE-SVC-" + hash(name + protocol.toLowerCase(Locale.ROOT));
    }

    /** {@code KUBE-EXT-} with the service chain's hash. */
    public static String externalChainName(ServicePortName name, String protocol) {
        return "KUBE-EXT-" + hash(name + protocol.toLowerCase(Locale.ROOT));
    }

    /** {@code KUBE-SVL-} (the local policy chain of externalTrafficPolicy Local) with the service chain's hash. */
    public static String localChainName(ServicePortName name, String protocol) {
        return "KUBE-SVL-" + hash(name + protocol.toLowerCase(Locale.ROOT));
    }

    /** {@code KUBE-SEP-} and 16 characters of base32(sha256(servicePortName + protocol + endpoint)), as upstream. */
    public static String endpointChainName(ServicePortName name, String protocol, String endpoint) {
        return "KUBE-SEP-" + hash(name + protocol.toLowerCase(Locale.ROOT) + endpoint);
    }

    private static String hash(String value) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
            return Base32.encode(digest).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is always available", e);
        }
    }

    /** {@code -m comment --comment <text>}, quoted when the text has spaces, as iptables-save prints it. */
    static String comment(String text) {
        return "-m comment --comment " + (text.contains(" ") ? "\"" + text + "\"" : text);
    }

    private static String rule(String chain, String ruleArguments) {
        return "-A " + chain + " " + ruleArguments;
    }

    /** What one service port's generation collects. */
    private static final class Fragment {
        private final List<String> natServices = new ArrayList<>();
        private final List<String> natNodePorts = new ArrayList<>();
        private final List<String> filterServices = new ArrayList<>();
        private final List<String> filterExternalServices = new ArrayList<>();
        private final SortedMap<String, List<String>> chains = new TreeMap<>();
    }
}
