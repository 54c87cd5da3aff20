package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.NSRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.PTRRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.SRVRecord;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Answers questions about the cluster zone ({@code cluster.local}) from a {@link RecordIndex}, with the names and
 * semantics of CoreDNS's kubernetes plugin (as kubeadm configures it: {@code pods insecure}, reverse zones with
 * fall-through):
 * <ul>
 *   <li>{@code <service>.<namespace>.svc.<zone>}: A/AAAA of the cluster IPs, or of every ready endpoint when headless;
 *       CNAME to the external name for ExternalName services; SRV for every port;</li>
 *   <li>{@code <endpoint>.<service>.<namespace>.svc.<zone>}: the endpoint's address, named by its hostname or its
 *       dashed address;</li>
 *   <li>{@code _<port>._<protocol>.<service>.<namespace>.svc.<zone>}: SRV of a named port, targeting the service name
 *       (or each endpoint name when headless), with the targets' addresses as additional records;</li>
 *   <li>{@code <a-b-c-d>.<namespace>.pod.<zone>}: the address the name spells;</li>
 *   <li>{@code in-addr.arpa}/{@code ip6.arpa} PTR of service and endpoint addresses; other reverse names are not ours.</li>
 * </ul>
 * Unknown names in the zone are NXDOMAIN and known names without the asked type NODATA, both with the zone's SOA.
 * Thread-safe (stateless over the index).
 */
public final class ClusterAnswers {
    private static final Name IN_ADDR_ARPA = Name.fromConstantString("in-addr.arpa.");
    private static final Name IP6_ARPA = Name.fromConstantString("ip6.arpa.");
    // Upstream's SOA timers for the cluster zone; the minimum (negative-caching TTL) is the records' TTL.
    private static final long SOA_REFRESH = 7200;
    private static final long SOA_RETRY = 1800;
    private static final long SOA_EXPIRE = 86400;

    private final RecordIndex index;
    private final Name zone;
    private final long ttl;
    private final Name nameServer;
    private final Name hostmaster;
    private final Optional<InetAddress> nameServerAddress;

    /**
     * @param zone the cluster domain, e.g. {@code cluster.local}
     * @param ttl the TTL of every answer (CoreDNS's kubernetes plugin defaults to 5 s)
     * @param nameServerAddress the cluster DNS service's address, served as {@code ns.dns.<zone>}
     */
    public ClusterAnswers(RecordIndex index, String zone, Duration ttl, Optional<InetAddress> nameServerAddress) {
        this.index = requireNonNull(index, "index is null");
        this.zone = absolute(requireNonNull(zone, "zone is null"));
        this.ttl = requireNonNull(ttl, "ttl is null").toSeconds();
        this.nameServer = child("ns.dns", this.zone);
        this.hostmaster = child("hostmaster", this.zone);
        this.nameServerAddress = requireNonNull(nameServerAddress, "nameServerAddress is null");
    }

    public Name zone() {
        return zone;
    }

    /** True when {@code name} is inside the cluster zone (which answers every name in it). */
    public boolean inZone(Name name) {
        return name.subdomain(zone);
    }

    /** The zone's SOA, which negative answers carry as authority. */
    public SOARecord soa() {
        return new SOARecord(zone, DClass.IN, ttl, nameServer, hostmaster, index.serial(), SOA_REFRESH, SOA_RETRY, SOA_EXPIRE, ttl);
    }

    /** Looks up {@code name}/{@code type} (class IN). */
    public Lookup lookup(Name name, int type) {
        if (name.subdomain(zone)) {
            return lookupInZone(name, type);
        }
        if (type == Type.PTR && (name.subdomain(IN_ADDR_ARPA) || name.subdomain(IP6_ARPA))) {
            return lookupReverse(name);
        }
        return new Lookup.NotAuthoritative();
    }

    private Lookup lookupInZone(Name name, int type) {
        List<String> labels = labelsBelowZone(name);
        if (labels.isEmpty()) {
            return switch (type) {
                case Type.SOA -> answer(List.of(soa()));
                case Type.NS -> new Lookup.Answer(List.of(new NSRecord(zone, DClass.IN, ttl, nameServer)), nameServerAddresses());
                default -> new Lookup.NoData();
            };
        }
        String last = labels.getLast();
        if (last.equals("svc")) {
            return lookupService(name, labels.subList(0, labels.size() - 1), type);
        }
        if (last.equals("pod")) {
            return lookupPod(name, labels.subList(0, labels.size() - 1), type);
        }
        if (labels.equals(List.of("ns", "dns")) && nameServerAddress.isPresent()) {
            return addressAnswer(name, type, List.of(nameServerAddress.get()));
        }
        if (labels.equals(List.of("dns")) && nameServerAddress.isPresent()) {
            return new Lookup.NoData();
        }
        return new Lookup.NameError();
    }

    /** {@code labels} are below {@code svc}, innermost last: [namespace], [service, namespace], .... */
    private Lookup lookupService(Name name, List<String> labels, int type) {
        if (labels.isEmpty()) {
            return new Lookup.NoData();
        }
        String namespace = labels.getLast();
        if (labels.size() == 1) {
            return index.hasNamespace(namespace) ? new Lookup.NoData() : new Lookup.NameError();
        }
        Optional<ServiceEntry> found = index.service(namespace, labels.get(labels.size() - 2));
        if (found.isEmpty()) {
            return new Lookup.NameError();
        }
        ServiceEntry service = found.get();
        return switch (labels.size()) {
            case 2 -> serviceName(name, service, type);
            case 3 -> endpointName(name, service, labels.getFirst(), type);
            case 4 -> portName(name, service, labels.get(0), labels.get(1), type);
            default -> new Lookup.NameError();
        };
    }

    private Lookup serviceName(Name name, ServiceEntry service, int type) {
        return switch (service.kind()) {
            case ServiceEntry.ExternalName externalName -> cname(name, externalName.target());
            case ServiceEntry.ClusterIp clusterIp -> switch (type) {
                case Type.SRV -> serviceSrv(name, service, service.ports().stream().toList(), true);
                default -> addressAnswer(name, type, clusterIp.addresses());
            };
            case ServiceEntry.Headless ignored -> switch (type) {
                case Type.SRV -> headlessSrv(name, service, null, null, true);
                default -> addressAnswer(name, type, service.endpoints().stream().map(ServiceEntry.Endpoint::address).toList());
            };
        };
    }

    private Lookup endpointName(Name name, ServiceEntry service, String label, int type) {
        if (service.kind() instanceof ServiceEntry.ExternalName) {
            return new Lookup.NameError();
        }
        // An empty non-terminal: _tcp.<service>... exists when a port of that protocol does.
        if (label.startsWith("_")) {
            String protocol = label.substring(1);
            boolean exists = service.ports().stream().anyMatch(port -> port.name().isPresent() && port.protocol().equalsIgnoreCase(protocol));
            return exists ? new Lookup.NoData() : new Lookup.NameError();
        }
        List<InetAddress> addresses = service.endpoints().stream().filter(endpoint -> endpoint.label().equalsIgnoreCase(label))
                .map(ServiceEntry.Endpoint::address).distinct().toList();
        return addresses.isEmpty() ? new Lookup.NameError() : addressAnswer(name, type, addresses);
    }

    private Lookup portName(Name name, ServiceEntry service, String portLabel, String protocolLabel, int type) {
        if (!portLabel.startsWith("_") || !protocolLabel.startsWith("_") || service.kind() instanceof ServiceEntry.ExternalName) {
            return new Lookup.NameError();
        }
        String port = portLabel.substring(1);
        String protocol = protocolLabel.substring(1);
        if (service.kind() instanceof ServiceEntry.Headless) {
            boolean exists = service.endpoints().stream().anyMatch(endpoint -> endpoint.ports().stream().anyMatch(candidate -> candidate.matches(port, protocol)));
            if (!exists) {
                return new Lookup.NameError();
            }
            return type == Type.SRV ? headlessSrv(name, service, port, protocol, false) : new Lookup.NoData();
        }
        List<ServicePort> ports = service.ports().stream().filter(candidate -> candidate.matches(port, protocol)).toList();
        if (ports.isEmpty()) {
            return new Lookup.NameError();
        }
        return type == Type.SRV ? serviceSrv(name, service, ports, false) : new Lookup.NoData();
    }

    /** SRV records targeting the service's own name, with its cluster IPs as additional records. */
    private Lookup serviceSrv(Name name, ServiceEntry service, List<ServicePort> ports, boolean includeUnnamed) {
        Name target = serviceName(service);
        List<ServicePort> selected = ports.stream().filter(port -> includeUnnamed || port.name().isPresent()).toList();
        if (selected.isEmpty()) {
            return new Lookup.NoData();
        }
        int weight = weight(selected.size());
        List<Record> answers = new ArrayList<>();
        selected.forEach(port -> answers.add(new SRVRecord(name, DClass.IN, ttl, 0, weight, port.port(), target)));
        List<InetAddress> addresses = service.kind() instanceof ServiceEntry.ClusterIp clusterIp ? clusterIp.addresses() : List.of();
        return new Lookup.Answer(answers, addressRecords(target, addresses));
    }

    /**
     * SRV records targeting each ready endpoint's own name, with the endpoints' addresses as additional records; a
     * port name of null means every port of every endpoint.
     */
    private Lookup headlessSrv(Name name, ServiceEntry service, String port, String protocol, boolean includeUnnamed) {
        Map<String, Record> answers = new LinkedHashMap<>();
        Map<String, Record> additional = new LinkedHashMap<>();
        List<SRVRecord> unweighted = new ArrayList<>();
        for (ServiceEntry.Endpoint endpoint : service.endpoints()) {
            Name target = child(endpoint.label(), serviceName(service));
            for (ServicePort candidate : endpoint.ports()) {
                boolean selected = port == null ? includeUnnamed || candidate.name().isPresent() : candidate.matches(port, protocol);
                if (selected && !answers.containsKey(target + ":" + candidate.port())) {
                    SRVRecord record = new SRVRecord(name, DClass.IN, ttl, 0, 0, candidate.port(), target);
                    answers.put(target + ":" + candidate.port(), record);
                    unweighted.add(record);
                    additional.putIfAbsent(target + "/" + endpoint.address().getHostAddress(), addressRecord(target, endpoint.address()));
                }
            }
        }
        if (unweighted.isEmpty()) {
            return new Lookup.NoData();
        }
        int weight = weight(unweighted.size());
        List<Record> weighted = unweighted.stream()
                .<Record>map(record -> new SRVRecord(name, DClass.IN, ttl, 0, weight, record.getPort(), record.getTarget())).toList();
        return new Lookup.Answer(weighted, List.copyOf(additional.values()));
    }

    /** As CoreDNS: records of one priority share a weight of 100 evenly. */
    private static int weight(int records) {
        return Math.max(1, 100 / records);
    }

    private Lookup lookupPod(Name name, List<String> labels, int type) {
        if (labels.size() < 2) {
            return new Lookup.NoData();
        }
        if (labels.size() > 2) {
            return new Lookup.NameError();
        }
        // pods insecure: the address is whatever the name spells; the namespace is not checked against the API.
        String label = labels.getFirst();
        Optional<InetAddress> address = label.indexOf('.') >= 0 ? Optional.empty()
                : IpAddresses.parse(label.replace('-', '.')).or(() -> IpAddresses.parse(label.replace('-', ':')));
        return address.isEmpty() ? new Lookup.NameError() : addressAnswer(name, type, List.of(address.get()));
    }

    private Lookup lookupReverse(Name name) {
        Optional<InetAddress> address = reverseAddress(name);
        if (address.isEmpty()) {
            return new Lookup.NotAuthoritative();
        }
        List<ReverseName> names = index.reverse(address.get());
        if (names.isEmpty()) {
            return new Lookup.NotAuthoritative();
        }
        List<Record> answers = new ArrayList<>();
        for (ReverseName reverseName : names) {
            Name service = child(reverseName.service() + "." + reverseName.namespace() + ".svc", zone);
            Name target = reverseName.endpointLabel().map(label -> child(label, service)).orElse(service);
            answers.add(new PTRRecord(name, DClass.IN, ttl, target));
        }
        return answer(answers);
    }

    /** The address an {@code in-addr.arpa} or {@code ip6.arpa} name spells, when it spells a whole one. */
    static Optional<InetAddress> reverseAddress(Name name) {
        List<String> labels = new ArrayList<>();
        for (int i = 0; i < name.labels(); i++) {
            if (!name.getLabelString(i).isEmpty()) {
                labels.add(name.getLabelString(i).toLowerCase(Locale.ROOT));
            }
        }
        if (name.subdomain(IN_ADDR_ARPA) && labels.size() == 6) {
            return IpAddresses.parse(labels.get(3) + "." + labels.get(2) + "." + labels.get(1) + "." + labels.get(0));
        }
        if (name.subdomain(IP6_ARPA) && labels.size() == 34) {
            StringBuilder text = new StringBuilder();
            for (int nibble = 31; nibble >= 0; nibble--) {
                String label = labels.get(nibble);
                if (label.length() != 1 || Character.digit(label.charAt(0), 16) < 0) {
                    return Optional.empty();
                }
                text.append(label);
                if (nibble % 4 == 0 && nibble > 0) {
                    text.append(':');
                }
            }
            return IpAddresses.parse(text.toString());
        }
        return Optional.empty();
    }

    private Lookup cname(Name name, String target) {
        if (target.isEmpty()) {
            return new Lookup.NoData();
        }
        return answer(List.of(new CNAMERecord(name, DClass.IN, ttl, absolute(target))));
    }

    /** A or AAAA of those {@code addresses} of the asked family; NODATA for other types or when none has the family. */
    private Lookup addressAnswer(Name name, int type, List<InetAddress> addresses) {
        if (type != Type.A && type != Type.AAAA) {
            return new Lookup.NoData();
        }
        List<Record> records = addresses.stream().distinct()
                .filter(address -> type == Type.A ? address instanceof Inet4Address : address instanceof Inet6Address)
                .map(address -> addressRecord(name, address)).toList();
        return records.isEmpty() ? new Lookup.NoData() : answer(records);
    }

    private List<Record> addressRecords(Name name, List<InetAddress> addresses) {
        return addresses.stream().map(address -> addressRecord(name, address)).toList();
    }

    private Record addressRecord(Name name, InetAddress address) {
        return address instanceof Inet4Address ? new ARecord(name, DClass.IN, ttl, address) : new AAAARecord(name, DClass.IN, ttl, address);
    }

    private List<Record> nameServerAddresses() {
        return nameServerAddress.map(address -> List.of(addressRecord(nameServer, address))).orElse(List.of());
    }

    private static Lookup answer(List<Record> answers) {
        return new Lookup.Answer(answers, List.of());
    }

    private Name serviceName(ServiceEntry service) {
        return child(service.name() + "." + service.namespace() + ".svc", zone);
    }

    /** The labels of {@code name} below the zone, outermost first, lower case. */
    private List<String> labelsBelowZone(Name name) {
        int count = name.labels() - zone.labels();
        List<String> labels = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            labels.add(name.getLabelString(i).toLowerCase(Locale.ROOT));
        }
        return labels;
    }

    private static Name child(String relative, Name origin) {
        try {
            return Name.fromString(relative, origin);
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a DNS name: " + relative + "." + origin, e);
        }
    }

    private static Name absolute(String name) {
        try {
            return Name.fromString(name.endsWith(".") ? name : name + ".");
        } catch (TextParseException e) {
            throw new IllegalArgumentException("not a DNS name: " + name, e);
        }
    }
}
