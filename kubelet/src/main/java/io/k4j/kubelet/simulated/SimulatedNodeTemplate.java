package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.NodeSystemInfoBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.k4j.kubelet.nodestatus.NodeConditions;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The Node objects simulated nodes register: the well-known labels (hostname, os, arch, instance type, zone spread
 * round robin, region), the configured labels and taints, capacity = allocatable, addresses, nodeInfo and healthy
 * conditions, plus the {@link SimulatedAnnotations#MANAGED_NODE} annotation that makes the simulator run them.
 * Stateless and thread-safe.
 */
final class SimulatedNodeTemplate {
    static final String ARCHITECTURE = "amd64";
    static final String OPERATING_SYSTEM = "linux";
    static final int KUBELET_PORT = 10250;

    private final SimulatedNodeConfig config;

    SimulatedNodeTemplate(SimulatedNodeConfig config) {
        this.config = requireNonNull(config, "config is null");
    }

    String nodeName(int index) {
        return config.namePrefix() + index;
    }

    /** The Node to register as node number {@code index}, with this InternalIP. */
    Node node(int index, String internalIp, Instant now) {
        String name = nodeName(index);
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", ARCHITECTURE);
        labels.put("beta.kubernetes.io/os", OPERATING_SYSTEM);
        labels.put("kubernetes.io/arch", ARCHITECTURE);
        labels.put("kubernetes.io/hostname", name);
        labels.put("kubernetes.io/os", OPERATING_SYSTEM);
        labels.put("node.kubernetes.io/instance-type", config.instanceType());
        labels.put("topology.kubernetes.io/region", config.region());
        if (!config.zones().isEmpty()) {
            labels.put("topology.kubernetes.io/zone", config.zones().get(index % config.zones().size()));
        }
        labels.putAll(config.labels());
        Map<String, Quantity> capacity = capacity();
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .withAnnotations(Map.of(SimulatedAnnotations.MANAGED_NODE, SimulatedAnnotations.MANAGED_NODE_VALUE))
                .endMetadata()
                .withNewSpec()
                .withTaints(taints())
                .endSpec()
                .withNewStatus()
                .withCapacity(capacity)
                .withAllocatable(capacity)
                .withConditions(NodeConditions.build(NodeConditions.HEALTHY, List.of(), now))
                .withAddresses(addresses(name, internalIp))
                .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(KUBELET_PORT).endKubeletEndpoint().endDaemonEndpoints()
                .withNodeInfo(nodeInfo(name))
                .endStatus()
                .build();
    }

    Map<String, Quantity> capacity() {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        config.capacity().forEach((resource, quantity) -> capacity.put(resource, new Quantity(quantity)));
        return capacity;
    }

    List<Taint> taints() {
        return config.taints().stream()
                .map(taint -> new TaintBuilder().withKey(taint.key()).withValue(taint.value().isEmpty() ? null : taint.value())
                        .withEffect(taint.effect()).build())
                .toList();
    }

    static List<NodeAddress> addresses(String name, String internalIp) {
        return List.of(new NodeAddress(internalIp, "InternalIP"), new NodeAddress(name, "Hostname"));
    }

    /** What {@code kubectl get nodes -o wide} shows for a simulated node; ids are stable per name. */
    NodeSystemInfo nodeInfo(String name) {
        String id = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
        return new NodeSystemInfoBuilder()
                .withArchitecture(ARCHITECTURE)
                .withOperatingSystem(OPERATING_SYSTEM)
                .withOsImage("k4j simulated node")
                .withKernelVersion("simulated")
                .withContainerRuntimeVersion("k4j-simulated://" + config.kubeletVersion())
                .withKubeletVersion(config.kubeletVersion())
                .withKubeProxyVersion(config.kubeletVersion())
                .withMachineID(id.replace("-", ""))
                .withSystemUUID(id)
                .withBootID(id)
                .build();
    }
}
