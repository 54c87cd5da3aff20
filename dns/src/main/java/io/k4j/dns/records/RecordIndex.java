package io.k4j.dns.records;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cluster's DNS data, kept current from Service and EndpointSlice events: one immutable {@link ServiceEntry} per
 * service (its ready endpoints merged from all its slices) and a reverse map from addresses to names. A change
 * recomputes only the service it touches, so a query never waits for a rebuild. Thread-safe: writers serialize on one
 * lock; readers never lock and see each service either before or after a change.
 */
public final class RecordIndex {
    /** The label an EndpointSlice names its service with. */
    public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";

    private final InstantSource clock;
    private final Object writeLock = new Object();
    // Guarded by writeLock: the API objects as last seen, reduced to what DNS needs.
    private final Map<String, ServiceSource> services = new HashMap<>();
    private final Map<String, SliceSource> slices = new HashMap<>();
    private final Map<String, Set<String>> sliceKeysByService = new HashMap<>();
    private final Map<String, Set<ReverseName>> reverseNamesByService = new HashMap<>();
    private final Map<String, List<InetAddress>> reverseAddressesByService = new HashMap<>();
    // Read without locking.
    private final Map<String, ServiceEntry> entries = new ConcurrentHashMap<>();
    private final Map<String, Integer> servicesPerNamespace = new ConcurrentHashMap<>();
    private final Map<InetAddress, Set<ReverseName>> reverse = new ConcurrentHashMap<>();
    private final AtomicLong serial;

    public RecordIndex(InstantSource clock) {
        this.clock = requireNonNull(clock, "clock is null");
        this.serial = new AtomicLong(clock.instant().getEpochSecond());
    }

    /** The service {@code namespace/name}, if it exists. */
    public Optional<ServiceEntry> service(String namespace, String name) {
        return Optional.ofNullable(entries.get(key(namespace, name)));
    }

    /** True when some service lives in {@code namespace}. */
    public boolean hasNamespace(String namespace) {
        return servicesPerNamespace.containsKey(namespace);
    }

    /** The names {@code address} maps back to, in a stable order. */
    public List<ReverseName> reverse(InetAddress address) {
        Set<ReverseName> names = reverse.get(address);
        if (names == null) {
            return List.of();
        }
        List<ReverseName> sorted = new ArrayList<>(names);
        sorted.sort(Comparator.comparing(ReverseName::namespace).thenComparing(ReverseName::service)
                .thenComparing(name -> name.endpointLabel().orElse("")));
        return sorted;
    }

    /** The SOA serial: the time of the last change in seconds, as CoreDNS's kubernetes plugin reports it. */
    public long serial() {
        return serial.get();
    }

    /** Adds or replaces a service. */
    public void putService(Service service) {
        String namespace = service.getMetadata().getNamespace();
        String name = service.getMetadata().getName();
        ServiceSource source = ServiceSource.of(service);
        synchronized (writeLock) {
            String key = key(namespace, name);
            if (services.put(key, source) == null) {
                servicesPerNamespace.merge(namespace, 1, Integer::sum);
            }
            recompute(key, namespace, name);
        }
    }

    /** Removes a service (its slices stay known, for when it comes back). */
    public void removeService(String namespace, String name) {
        synchronized (writeLock) {
            String key = key(namespace, name);
            if (services.remove(key) != null) {
                servicesPerNamespace.computeIfPresent(namespace, (ignored, count) -> count == 1 ? null : count - 1);
            }
            recompute(key, namespace, name);
        }
    }

    /** Adds or replaces an EndpointSlice; slices without the service-name label belong to no service. */
    public void putEndpointSlice(EndpointSlice slice) {
        String namespace = slice.getMetadata().getNamespace();
        String sliceKey = key(namespace, slice.getMetadata().getName());
        SliceSource source = SliceSource.of(slice);
        synchronized (writeLock) {
            SliceSource previous = slices.put(sliceKey, source);
            if (previous != null && !previous.service().equals(source.service())) {
                detach(namespace, sliceKey, previous);
            }
            source.service().ifPresent(service -> {
                String serviceKey = key(namespace, service);
                sliceKeysByService.computeIfAbsent(serviceKey, ignored -> new HashSet<>()).add(sliceKey);
                recompute(serviceKey, namespace, service);
            });
        }
    }

    /** Removes an EndpointSlice. */
    public void removeEndpointSlice(String namespace, String name) {
        String sliceKey = key(namespace, name);
        synchronized (writeLock) {
            SliceSource previous = slices.remove(sliceKey);
            if (previous != null) {
                detach(namespace, sliceKey, previous);
            }
        }
    }

    private void detach(String namespace, String sliceKey, SliceSource slice) {
        slice.service().ifPresent(service -> {
            String serviceKey = key(namespace, service);
            Set<String> keys = sliceKeysByService.get(serviceKey);
            if (keys != null) {
                keys.remove(sliceKey);
                if (keys.isEmpty()) {
                    sliceKeysByService.remove(serviceKey);
                }
            }
            recompute(serviceKey, namespace, service);
        });
    }

    /** Rebuilds one service's entry and reverse names from its sources; callers hold the write lock. */
    private void recompute(String serviceKey, String namespace, String name) {
        ServiceSource service = services.get(serviceKey);
        Optional<ServiceEntry> entry = Optional.ofNullable(service).map(source -> source.entry(namespace, name, endpoints(serviceKey)));
        Set<ReverseName> oldNames = reverseNamesByService.getOrDefault(serviceKey, Set.of());
        List<InetAddress> oldAddresses = reverseAddressesByService.getOrDefault(serviceKey, List.of());
        for (int i = 0; i < oldAddresses.size(); i++) {
            InetAddress address = oldAddresses.get(i);
            reverse.computeIfPresent(address, (ignored, names) -> {
                Set<ReverseName> remaining = new HashSet<>(names);
                remaining.removeAll(oldNames);
                return remaining.isEmpty() ? null : Set.copyOf(remaining);
            });
        }
        reverseNamesByService.remove(serviceKey);
        reverseAddressesByService.remove(serviceKey);
        if (entry.isEmpty()) {
            entries.remove(serviceKey);
        } else {
            entries.put(serviceKey, entry.get());
            Map<InetAddress, ReverseName> reverseNames = reverseNames(entry.get());
            reverseNames.forEach((address, reverseName) -> reverse.merge(address, Set.of(reverseName), (existing, added) -> {
                Set<ReverseName> merged = new HashSet<>(existing);
                merged.addAll(added);
                return Set.copyOf(merged);
            }));
            reverseNamesByService.put(serviceKey, Set.copyOf(reverseNames.values()));
            reverseAddressesByService.put(serviceKey, List.copyOf(reverseNames.keySet()));
        }
        serial.set(Math.max(serial.get(), clock.instant().getEpochSecond()));
    }

    private static Map<InetAddress, ReverseName> reverseNames(ServiceEntry entry) {
        Map<InetAddress, ReverseName> names = new HashMap<>();
        if (entry.kind() instanceof ServiceEntry.ClusterIp clusterIp) {
            clusterIp.addresses().forEach(address -> names.put(address, new ReverseName(entry.namespace(), entry.name(), Optional.empty())));
        }
        for (ServiceEntry.Endpoint endpoint : entry.endpoints()) {
            names.putIfAbsent(endpoint.address(), new ReverseName(entry.namespace(), entry.name(), Optional.of(endpoint.label())));
        }
        return names;
    }

    private List<ServiceEntry.Endpoint> endpoints(String serviceKey) {
        // Slices in name order, so that answers do not depend on event order; an address two slices repeat counts once.
        Map<String, SliceSource> ordered = new TreeMap<>();
        sliceKeysByService.getOrDefault(serviceKey, Set.of()).forEach(sliceKey -> ordered.put(sliceKey, slices.get(sliceKey)));
        Set<ServiceEntry.Endpoint> endpoints = new LinkedHashSet<>();
        ordered.values().forEach(slice -> endpoints.addAll(slice.endpoints()));
        return List.copyOf(endpoints);
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** The parts of a Service DNS answers from. */
    private record ServiceSource(ServiceEntry.Kind kind, List<ServicePort> ports) {
        static ServiceSource of(Service service) {
            ServiceSpec spec = service.getSpec() == null ? new ServiceSpec() : service.getSpec();
            List<ServicePort> ports = new ArrayList<>();
            if (spec.getPorts() != null) {
                for (io.fabric8.kubernetes.api.model.ServicePort port : spec.getPorts()) {
                    if (port.getPort() != null) {
                        ports.add(new ServicePort(nonEmpty(port.getName()), protocol(port.getProtocol()), port.getPort()));
                    }
                }
            }
            return new ServiceSource(kind(spec), List.copyOf(ports));
        }

        private static ServiceEntry.Kind kind(ServiceSpec spec) {
            if ("ExternalName".equals(spec.getType())) {
                String target = spec.getExternalName() == null ? "" : spec.getExternalName();
                return new ServiceEntry.ExternalName(target.endsWith(".") ? target.substring(0, target.length() - 1) : target);
            }
            if ("None".equals(spec.getClusterIP())) {
                return new ServiceEntry.Headless();
            }
            List<String> texts = spec.getClusterIPs() != null && !spec.getClusterIPs().isEmpty()
                    ? spec.getClusterIPs()
                    : spec.getClusterIP() == null ? List.of() : List.of(spec.getClusterIP());
            List<InetAddress> addresses = new ArrayList<>();
            texts.forEach(text -> IpAddresses.parse(text).ifPresent(addresses::add));
            return new ServiceEntry.ClusterIp(addresses);
        }

        ServiceEntry entry(String namespace, String name, List<ServiceEntry.Endpoint> endpoints) {
            return new ServiceEntry(namespace, name, kind, ports, endpoints);
        }
    }

    /** The parts of an EndpointSlice DNS answers from: its service and its ready addresses. */
    private record SliceSource(Optional<String> service, List<ServiceEntry.Endpoint> endpoints) {
        static SliceSource of(EndpointSlice slice) {
            Map<String, String> labels = slice.getMetadata().getLabels();
            Optional<String> service = Optional.ofNullable(labels == null ? null : labels.get(SERVICE_NAME_LABEL)).filter(name -> !name.isEmpty());
            // FQDN slices name hosts, not addresses; DNS has nothing to serve from them.
            if (!"IPv4".equals(slice.getAddressType()) && !"IPv6".equals(slice.getAddressType())) {
                return new SliceSource(service, List.of());
            }
            List<ServicePort> ports = new ArrayList<>();
            if (slice.getPorts() != null) {
                for (EndpointPort port : slice.getPorts()) {
                    if (port.getPort() != null) {
                        ports.add(new ServicePort(nonEmpty(port.getName()), protocol(port.getProtocol()), port.getPort()));
                    }
                }
            }
            List<ServiceEntry.Endpoint> endpoints = new ArrayList<>();
            if (slice.getEndpoints() != null) {
                for (Endpoint endpoint : slice.getEndpoints()) {
                    // As CoreDNS: an endpoint is served unless its ready condition is explicitly false; the slice
                    // controller already marks not-ready endpoints ready when the service publishes them.
                    if (endpoint.getConditions() != null && Boolean.FALSE.equals(endpoint.getConditions().getReady())) {
                        continue;
                    }
                    Optional<String> hostname = nonEmpty(endpoint.getHostname());
                    for (String text : endpoint.getAddresses() == null ? List.<String>of() : endpoint.getAddresses()) {
                        Optional<InetAddress> address = IpAddresses.parse(text);
                        address.ifPresent(parsed -> endpoints.add(new ServiceEntry.Endpoint(parsed, hostname.orElseGet(() -> IpAddresses.dashed(text)), ports)));
                    }
                }
            }
            return new SliceSource(service, List.copyOf(endpoints));
        }
    }

    private static Optional<String> nonEmpty(String text) {
        return Optional.ofNullable(text).filter(value -> !value.isEmpty());
    }

    private static String protocol(String protocol) {
        return protocol == null || protocol.isEmpty() ? "TCP" : protocol;
    }
}
