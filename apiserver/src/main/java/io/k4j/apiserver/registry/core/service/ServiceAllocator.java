package io.k4j.apiserver.registry.core.service;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.k4j.api.errors.StatusException;
import io.k4j.api.validation.FieldError;
import io.k4j.api.validation.FieldErrors;
import io.k4j.apiserver.registry.core.Trees;
import io.k4j.apiserver.registry.generic.WriteHooks;
import io.k4j.apiserver.registry.generic.WriteTransaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster IPs from {@code --service-cluster-ip-range} and node ports from {@code --service-node-port-range}, as
 * upstream's service REST allocators: a create gets an IP (unless headless or ExternalName) and, for NodePort and
 * LoadBalancer services, a node port per port; requested values are checked against the range and what is taken;
 * an update that changes the type allocates or releases accordingly; a delete releases everything.
 *
 * <p>The state is two bitmaps in memory, rebuilt from the stored services when the store starts (instead of
 * upstream's RangeAllocation objects and repair loop): the apiserver is the only writer of services, so the stored
 * services plus the writes in flight are the whole truth. One lock orders every allocation, so two racing creates
 * never get the same IP; a create that is not stored gives its reservations back. Thread-safe.
 */
public final class ServiceAllocator implements WriteHooks {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceAllocator.class);

    private final ClusterIpRange ipRange;
    private final NodePortRange portRange;
    private final BitmapAllocator ips;
    private final BitmapAllocator ports;

    public ServiceAllocator(ClusterIpRange ipRange, NodePortRange portRange) {
        this(ipRange, portRange, RandomGenerator.getDefault());
    }

    ServiceAllocator(ClusterIpRange ipRange, NodePortRange portRange, RandomGenerator random) {
        this.ipRange = requireNonNull(ipRange, "ipRange is null");
        this.portRange = requireNonNull(portRange, "portRange is null");
        requireNonNull(random, "random is null");
        // Upstream's static bands: a sixteenth of the service range (16..256 addresses) and a thirty-second of the
        // node port range (16..128 ports) are left for requested values.
        this.ips = new BitmapAllocator(ipRange.size(), BitmapAllocator.staticBand(ipRange.size(), 16, 16, 256), random);
        this.ports = new BitmapAllocator(portRange.size(), BitmapAllocator.staticBand(portRange.size(), 32, 16, 128), random);
    }

    public ClusterIpRange ipRange() {
        return ipRange;
    }

    public NodePortRange portRange() {
        return portRange;
    }

    @Override
    public synchronized void initialize(List<ObjectNode> storedServices) {
        ips.clear();
        ports.clear();
        for (ObjectNode service : storedServices) {
            String name = Trees.text(service, "metadata", "namespace") + "/" + Trees.text(service, "metadata", "name");
            JsonNode spec = Trees.at(service, "spec");
            if (needsClusterIp(spec)) {
                for (JsonNode ip : Trees.elements(spec, "clusterIPs")) {
                    OptionalInt offset = ipRange.offsetOf(ip.asText());
                    if (offset.isEmpty()) {
                        LOG.warn("the cluster IP {} of service {} is not within the service CIDR {}; please recreate the service", ip.asText(), name, ipRange);
                    } else if (!ips.allocate(offset.getAsInt())) {
                        LOG.warn("the cluster IP {} of service {} was assigned to several services; please recreate the service", ip.asText(), name);
                    }
                }
            }
            for (long nodePort : nodePorts(spec)) {
                if (!portRange.contains(nodePort)) {
                    LOG.warn("the node port {} of service {} is not within the node port range {}; please recreate the service", nodePort, name, portRange);
                } else if (!ports.allocate((int) nodePort - portRange.first())) {
                    LOG.warn("the node port {} of service {} was assigned to several services; please recreate the service", nodePort, name);
                }
            }
        }
        LOG.info("service allocations rebuilt from {} services: {} cluster IPs of {} in {}, {} node ports in {}",
                storedServices.size(), ips.takenCount(), ips.size(), ipRange, ports.takenCount(), portRange);
    }

    @Override
    public WriteTransaction beginCreate(ObjectNode service, boolean dryRun) {
        String name = Trees.text(service, "metadata", "name");
        ObjectNode spec = Trees.object(service, "spec");
        synchronized (this) {
            Reservation reservation = new Reservation();
            try {
                if (needsClusterIp(spec) && !Trees.text(spec, "clusterIP").equals("None")) {
                    allocateClusterIp(name, spec, reservation);
                }
                if (needsNodePorts(spec)) {
                    allocateNodePorts(name, spec, Set.of(), reservation);
                }
            } catch (RuntimeException e) {
                reservation.revertLocked();
                throw e;
            }
            return finishBegin(reservation, dryRun);
        }
    }

    @Override
    public WriteTransaction beginUpdate(ObjectNode newService, ObjectNode oldService, boolean dryRun) {
        String name = Trees.text(newService, "metadata", "name");
        ObjectNode spec = Trees.object(newService, "spec");
        JsonNode oldSpec = Trees.at(oldService, "spec");
        synchronized (this) {
            Reservation reservation = new Reservation();
            try {
                if (!needsClusterIp(oldSpec) && needsClusterIp(spec)) {
                    if (!Trees.text(spec, "clusterIP").equals("None")) {
                        allocateClusterIp(name, spec, reservation);
                    }
                } else if (needsClusterIp(oldSpec) && !needsClusterIp(spec)) {
                    for (JsonNode ip : Trees.elements(oldSpec, "clusterIPs")) {
                        ipRange.offsetOf(ip.asText()).ifPresent(reservation.ipsToRelease::add);
                    }
                }
                Set<Long> oldNodePorts = new HashSet<>(nodePorts(oldSpec));
                if (needsNodePorts(spec)) {
                    allocateNodePorts(name, spec, oldNodePorts, reservation);
                }
                Set<Long> kept = new HashSet<>(nodePorts(spec));
                for (long oldPort : oldNodePorts) {
                    if (!kept.contains(oldPort) && portRange.contains(oldPort)) {
                        reservation.portsToRelease.add((int) oldPort - portRange.first());
                    }
                }
            } catch (RuntimeException e) {
                reservation.revertLocked();
                throw e;
            }
            return finishBegin(reservation, dryRun);
        }
    }

    @Override
    public synchronized void afterDelete(ObjectNode deletedService) {
        JsonNode spec = Trees.at(deletedService, "spec");
        if (needsClusterIp(spec)) {
            for (JsonNode ip : Trees.elements(spec, "clusterIPs")) {
                ipRange.offsetOf(ip.asText()).ifPresent(ips::release);
            }
        }
        for (long nodePort : nodePorts(spec)) {
            if (portRange.contains(nodePort)) {
                ports.release((int) nodePort - portRange.first());
            }
        }
    }

    /** Whether an address is taken, for tests and diagnostics. */
    public synchronized boolean isAllocated(String ip) {
        OptionalInt offset = ipRange.offsetOf(ip);
        return offset.isPresent() && ips.isTaken(offset.getAsInt());
    }

    /** Whether a node port is taken, for tests and diagnostics. */
    public synchronized boolean isAllocated(int nodePort) {
        return portRange.contains(nodePort) && ports.isTaken(nodePort - portRange.first());
    }

    private WriteTransaction finishBegin(Reservation reservation, boolean dryRun) {
        if (dryRun) {
            // A dry run shows what would be allocated but keeps nothing.
            reservation.revertLocked();
            return WriteTransaction.NONE;
        }
        return reservation;
    }

    private void allocateClusterIp(String name, ObjectNode spec, Reservation reservation) {
        FieldErrors errors = new FieldErrors();
        List<JsonNode> families = Trees.elements(spec, "ipFamilies");
        for (int index = 0; index < families.size(); index++) {
            if (!families.get(index).asText().equals("IPv4")) {
                errors.add(FieldError.invalid("spec.ipFamilies[" + index + "]", families.get(index).asText(), "not configured on this cluster"));
            }
        }
        if (Trees.text(spec, "ipFamilyPolicy").equals("RequireDualStack")) {
            errors.add(FieldError.invalid("spec.ipFamilyPolicy", "RequireDualStack", "this cluster is not configured for dual-stack services"));
        }
        if (!errors.isEmpty()) {
            throw StatusException.invalid("", "Service", name, errors);
        }
        String requested = Trees.text(spec, "clusterIP");
        String ip;
        if (requested.isEmpty()) {
            OptionalInt offset = ips.allocateNext();
            if (offset.isEmpty()) {
                throw StatusException.internalError("failed to allocate a serviceIP: range is full");
            }
            reservation.ipsAllocated.add(offset.getAsInt());
            ip = ipRange.addressAt(offset.getAsInt());
        } else {
            OptionalInt offset = ipRange.offsetOf(requested);
            String problem = null;
            if (offset.isEmpty()) {
                problem = "the provided IP (" + requested + ") is not in the valid range. The range of valid IPs is " + ipRange;
            } else if (!ips.allocate(offset.getAsInt())) {
                problem = "provided IP is already allocated";
            }
            if (problem != null) {
                List<String> clusterIps = new ArrayList<>();
                Trees.elements(spec, "clusterIPs").forEach(value -> clusterIps.add(value.asText()));
                if (clusterIps.isEmpty()) {
                    clusterIps.add(requested);
                }
                throw StatusException.invalid("", "Service", name, new FieldErrors().add(
                        FieldError.invalid("spec.clusterIPs", clusterIps, "failed to allocate IP " + requested + ": " + problem)));
            }
            reservation.ipsAllocated.add(offset.getAsInt());
            ip = requested;
        }
        spec.put("clusterIP", ip);
        ArrayNode clusterIps = spec.putArray("clusterIPs");
        clusterIps.add(ip);
    }

    /**
     * Upstream's rules: ports that share a port number (TCP and UDP of the same port) share a node port; a requested
     * node port is taken unless the old object already holds it; a LoadBalancer with
     * {@code allocateLoadBalancerNodePorts: false} gets only what it asks for.
     */
    private void allocateNodePorts(String name, ObjectNode spec, Set<Long> alreadyHeld, Reservation reservation) {
        boolean allocateMissing = !Trees.text(spec, "type").equals("LoadBalancer") || !Trees.has(spec, "allocateLoadBalancerNodePorts")
                || Trees.bool(spec, "allocateLoadBalancerNodePorts");
        List<ObjectNode> servicePorts = Trees.objects(spec, "ports");
        Map<Long, Long> nodePortByPort = new HashMap<>();
        Set<Long> takenHere = new HashSet<>();
        for (int index = 0; index < servicePorts.size(); index++) {
            ObjectNode port = servicePorts.get(index);
            long nodePort = Trees.integer(port, "nodePort");
            if (nodePort == 0 && !allocateMissing) {
                continue;
            }
            long portNumber = Trees.integer(port, "port");
            Long shared = nodePortByPort.get(portNumber);
            if (nodePort == 0 && shared != null) {
                port.put("nodePort", shared);
                continue;
            }
            if (nodePort == 0) {
                nodePort = requestedNodePort(portNumber, servicePorts);
            }
            if (nodePort != 0) {
                if (!alreadyHeld.contains(nodePort) && !takenHere.contains(nodePort)) {
                    String problem = null;
                    if (!portRange.contains(nodePort)) {
                        problem = "provided port is not in the valid range. The range of valid ports is " + portRange;
                    } else if (!ports.allocate((int) nodePort - portRange.first())) {
                        problem = "provided port is already allocated";
                    }
                    if (problem != null) {
                        throw StatusException.invalid("", "Service", name, new FieldErrors().add(
                                FieldError.invalid("spec.ports[" + index + "].nodePort", nodePort, problem)));
                    }
                    reservation.portsAllocated.add((int) nodePort - portRange.first());
                }
            } else {
                OptionalInt offset = ports.allocateNext();
                if (offset.isEmpty()) {
                    throw StatusException.internalError("failed to allocate a nodePort: range is full");
                }
                reservation.portsAllocated.add(offset.getAsInt());
                nodePort = portRange.first() + offset.getAsInt();
            }
            takenHere.add(nodePort);
            port.put("nodePort", nodePort);
            nodePortByPort.putIfAbsent(portNumber, nodePort);
        }
    }

    private static long requestedNodePort(long portNumber, List<ObjectNode> servicePorts) {
        for (ObjectNode port : servicePorts) {
            if (Trees.integer(port, "port") == portNumber && Trees.integer(port, "nodePort") != 0) {
                return Trees.integer(port, "nodePort");
            }
        }
        return 0;
    }

    static boolean needsClusterIp(JsonNode spec) {
        return !Trees.text(spec, "type").equals("ExternalName");
    }

    static boolean needsNodePorts(JsonNode spec) {
        String type = Trees.text(spec, "type");
        return type.equals("NodePort") || type.equals("LoadBalancer");
    }

    private static List<Long> nodePorts(JsonNode spec) {
        List<Long> result = new ArrayList<>();
        for (JsonNode port : Trees.elements(spec, "ports")) {
            long nodePort = Trees.integer(port, "nodePort");
            if (nodePort != 0 && !result.contains(nodePort)) {
                result.add(nodePort);
            }
        }
        return result;
    }

    /** What one write reserved and what it gives up once stored; guarded by the allocator's lock. */
    private final class Reservation implements WriteTransaction {
        final List<Integer> ipsAllocated = new ArrayList<>();
        final List<Integer> portsAllocated = new ArrayList<>();
        final List<Integer> ipsToRelease = new ArrayList<>();
        final List<Integer> portsToRelease = new ArrayList<>();

        @Override
        public void commit() {
            synchronized (ServiceAllocator.this) {
                ipsToRelease.forEach(ips::release);
                portsToRelease.forEach(ports::release);
            }
        }

        @Override
        public void revert() {
            synchronized (ServiceAllocator.this) {
                revertLocked();
            }
        }

        void revertLocked() {
            ipsAllocated.forEach(ips::release);
            portsAllocated.forEach(ports::release);
            ipsAllocated.clear();
            portsAllocated.clear();
        }
    }
}
