package io.k4j.kubelet.nodestatus;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSystemInfo;
import io.fabric8.kubernetes.api.model.NodeSystemInfoBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.Image;
import io.k4j.kubelet.cri.v1.ImageFilter;
import io.k4j.kubelet.cri.v1.NetworkConfig;
import io.k4j.kubelet.cri.v1.RuntimeConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A real node's registration and heartbeats, as upstream's kubelet node status: registers the Node (capacity and
 * allocatable from the host minus reserved resources and the hard eviction thresholds, addresses, nodeInfo with the
 * runtime's version, the images the runtime has), renews its Lease every 10 s, computes the conditions every 10 s
 * (Ready from the runtime's health, memory and disk pressure from the host) and writes the status when they changed
 * or every 5 min; learns the node's podCIDRs (and tells the runtime and a {@link PodCidrListener}).
 *
 * <p>Thread-safe; one thread does the heartbeats.
 */
public final class NodeStatusManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeStatusManager.class);
    private static final PatchContext STRATEGIC_MERGE_PATCH = PatchContext.of(PatchType.STRATEGIC_MERGE);
    /** Upstream's default hard eviction thresholds, held back from allocatable. */
    private static final long EVICTION_MEMORY_AVAILABLE = 100L * 1024 * 1024;
    private static final double EVICTION_NODEFS_AVAILABLE = 0.10;
    private static final int MAX_IMAGES = 50;
    /** How long the host's CPUs, memory and disk size, once read, stand for it. */
    private static final Duration HOST_FIGURES_MAX_AGE = Duration.ofSeconds(10);

    /** The host's figures as read at {@code readAt}. */
    private record HostFigures(int cpus, long memoryBytes, long storageBytes, Instant readAt) {}

    private final KubernetesClient client;
    private final KubeletConfig config;
    private final RuntimeService runtime;
    private final ImageService images;
    private final PodCidrListener podCidrListener;
    private final String kubeletVersion;
    private final InstantSource clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("k4j-kubelet-node-status").factory());
    private volatile List<String> podCidrs = List.of();
    private volatile RuntimeHealth runtimeHealth = new RuntimeHealth(false, "container runtime status check may not have completed yet");
    private static final RuntimeHealth RUNTIME_DOWN = new RuntimeHealth(false, RuntimeHealth.RUNTIME_DOWN);

    private final EventRecorder events;
    private volatile boolean runtimeProcessDown;
    private volatile String nodeUid = "";
    private volatile PressureConditions pressure;
    private int leaseFailures;
    private volatile HostFigures hostFigures;

    public NodeStatusManager(KubernetesClient client, KubeletConfig config, RuntimeService runtime, ImageService images,
            PodCidrListener podCidrListener, String kubeletVersion, InstantSource clock) {
        this(client, config, runtime, images, podCidrListener, kubeletVersion, clock, (object, type, reason, message) -> {});
    }

    /** @param events where the node's NodeReady and NodeNotReady Events go, as upstream's kubelet records them */
    public NodeStatusManager(KubernetesClient client, KubeletConfig config, RuntimeService runtime, ImageService images,
            PodCidrListener podCidrListener, String kubeletVersion, InstantSource clock, EventRecorder events) {
        this.events = requireNonNull(events, "events is null");
        this.client = requireNonNull(client, "client is null");
        this.config = requireNonNull(config, "config is null");
        this.runtime = requireNonNull(runtime, "runtime is null");
        this.images = requireNonNull(images, "images is null");
        this.podCidrListener = requireNonNull(podCidrListener, "podCidrListener is null");
        this.kubeletVersion = requireNonNull(kubeletVersion, "kubeletVersion is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Where MemoryPressure and DiskPressure come from: the eviction manager, which knows the configured thresholds.
     * Without one the default thresholds are checked against the host. Call before {@link #start}.
     */
    public void setPressureConditions(PressureConditions pressureConditions) {
        this.pressure = requireNonNull(pressureConditions, "pressureConditions is null");
    }

    /** The node's pressure as the eviction manager decides it. */
    public interface PressureConditions {
        boolean memoryPressure();

        boolean diskPressure();
    }

    /** Registers the node (or takes over its existing Node) and starts the heartbeats. */
    public void start() {
        register();
        timer.scheduleWithFixedDelay(this::heartbeat, 0, NodeHeartbeat.LEASE_RENEW_INTERVAL.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** The node's capacity as the host has it. */
    public Map<String, Quantity> capacity() {
        return capacity(hostFigures());
    }

    private Map<String, Quantity> capacity(HostFigures host) {
        Map<String, Quantity> capacity = new LinkedHashMap<>();
        capacity.put("cpu", new Quantity(Integer.toString(host.cpus())));
        capacity.put("ephemeral-storage", new Quantity(host.storageBytes() / 1024 + "Ki"));
        capacity.put("hugepages-1Gi", new Quantity("0"));
        capacity.put("hugepages-2Mi", new Quantity("0"));
        capacity.put("memory", new Quantity(host.memoryBytes() / 1024 + "Ki"));
        capacity.put("pods", new Quantity(Integer.toString(config.maxPods())));
        return capacity;
    }

    /** Capacity minus system-reserved resources and the hard eviction thresholds, as upstream. */
    public Map<String, Quantity> allocatable() {
        HostFigures host = hostFigures();
        Map<String, Quantity> allocatable = new LinkedHashMap<>(capacity(host));
        long cpuMilli = host.cpus() * 1000L - milli(config.systemReserved().get("cpu"));
        allocatable.put("cpu", new Quantity(cpuMilli % 1000 == 0 ? Long.toString(cpuMilli / 1000) : cpuMilli + "m"));
        long memory = host.memoryBytes() - bytes(config.systemReserved().get("memory")) - EVICTION_MEMORY_AVAILABLE;
        allocatable.put("memory", new Quantity(Math.max(0, memory) / 1024 + "Ki"));
        long storage = host.storageBytes();
        long storageAllocatable = storage - bytes(config.systemReserved().get("ephemeral-storage"))
                - (long) (storage * EVICTION_NODEFS_AVAILABLE);
        allocatable.put("ephemeral-storage", new Quantity(Long.toString(Math.max(0, storageAllocatable))));
        return allocatable;
    }

    /**
     * The host's figures, read again once they are {@link #HOST_FIGURES_MAX_AGE} old. Pod admission and memory-backed
     * volumes ask for allocatable on every pod sync, and a file system's size is found through the whole mount table;
     * upstream's kubelet too reads them from machine information it refreshes now and then.
     */
    private HostFigures hostFigures() {
        HostFigures figures = hostFigures;
        Instant now = clock.instant();
        if (figures == null || now.isBefore(figures.readAt()) || !now.isBefore(figures.readAt().plus(HOST_FIGURES_MAX_AGE))) {
            figures = new HostFigures(HostResources.cpus(), HostResources.memoryBytes(), HostResources.storageBytes(config.rootDirectory()), now);
            hostFigures = figures;
        }
        return figures;
    }

    public List<String> podCidrs() {
        return podCidrs;
    }

    /**
     * Tells that the runtime's process died ({@code running} false) or answers again: the node's Ready condition
     * follows at once instead of at the next heartbeat, and while the process is down the runtime counts as down
     * without asking it. Each change is written in order, so even an outage shorter than a status write shows as
     * NotReady. Returns at once.
     */
    public void runtimeStateChanged(boolean running) {
        runtimeProcessDown = !running;
        Optional<RuntimeHealth> known = running ? Optional.empty() : Optional.of(RUNTIME_DOWN);
        try {
            timer.execute(() -> updateStatus(known));
        }
        catch (RejectedExecutionException e) {
            // Closed: nothing to report any more.
        }
    }

    private void updateStatus(Optional<RuntimeHealth> known) {
        try {
            Node node = client.nodes().withName(config.nodeName()).get();
            if (node != null) {
                writeStatus(node, false, known);
            }
        }
        catch (RuntimeException e) {
            log.warn("Updating the status of node {} failed: {}", config.nodeName(), e.getMessage());
        }
    }

    /** The runtime's health as the last heartbeat saw it. */
    public RuntimeHealth runtimeHealth() {
        return runtimeHealth;
    }

    private void register() {
        Node node = new NodeBuilder()
                .withNewMetadata()
                .withName(config.nodeName())
                .withLabels(labels())
                .withAnnotations(Map.of("node.alpha.kubernetes.io/ttl", "0",
                        "volumes.kubernetes.io/controller-managed-attach-detach", "true"))
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build();
        while (true) {
            try {
                Node existing = client.nodes().withName(config.nodeName()).get();
                Node current = existing != null ? existing : client.nodes().resource(node).create();
                nodeUid = current.getMetadata().getUid();
                log.info("{} node {}", existing != null ? "Using the existing" : "Registered", config.nodeName());
                writeStatus(current, true, Optional.empty());
                return;
            }
            catch (KubernetesClientException e) {
                if (e.getCode() == 409) {
                    continue;
                }
                log.warn("Registering node {} failed, retrying: {}", config.nodeName(), e.getMessage());
                try {
                    Thread.sleep(1000);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("beta.kubernetes.io/arch", "amd64");
        labels.put("beta.kubernetes.io/os", "linux");
        labels.put("kubernetes.io/arch", "amd64");
        labels.put("kubernetes.io/hostname", config.nodeName());
        labels.put("kubernetes.io/os", "linux");
        labels.putAll(config.labels());
        return labels;
    }

    private void heartbeat() {
        try {
            renewLease();
            leaseFailures = 0;
        }
        catch (RuntimeException e) {
            leaseFailures++;
            log.warn("Renewing the Lease of node {} failed: {}", config.nodeName(), e.getMessage());
        }
        try {
            Node node = client.nodes().withName(config.nodeName()).get();
            if (node == null) {
                register();
                return;
            }
            updatePodCidrs(node);
            writeStatus(node, false, Optional.empty());
        }
        catch (RuntimeException e) {
            log.warn("Updating the status of node {} failed: {}", config.nodeName(), e.getMessage());
        }
    }

    private void renewLease() {
        Instant now = clock.instant();
        Lease lease = client.leases().inNamespace(NodeHeartbeat.LEASE_NAMESPACE).withName(config.nodeName()).get();
        if (lease == null) {
            client.leases().inNamespace(NodeHeartbeat.LEASE_NAMESPACE)
                    .resource(NodeLeases.newLease(config.nodeName(), nodeUid, now)).create();
        }
        else {
            client.leases().inNamespace(NodeHeartbeat.LEASE_NAMESPACE)
                    .resource(NodeLeases.renewed(lease, config.nodeName(), nodeUid, now)).update();
        }
    }

    private void updatePodCidrs(Node node) {
        List<String> cidrs = node.getSpec() == null ? List.of()
                : node.getSpec().getPodCIDRs() != null && !node.getSpec().getPodCIDRs().isEmpty()
                        ? List.copyOf(node.getSpec().getPodCIDRs())
                        : node.getSpec().getPodCIDR() != null ? List.of(node.getSpec().getPodCIDR()) : List.of();
        if (cidrs.isEmpty() || cidrs.equals(podCidrs)) {
            return;
        }
        log.info("Node {} has pod CIDRs {}", config.nodeName(), cidrs);
        podCidrListener.podCidrsChanged(cidrs);
        try {
            runtime.updateRuntimeConfig(RuntimeConfig.newBuilder()
                    .setNetworkConfig(NetworkConfig.newBuilder().setPodCidr(String.join(",", cidrs)))
                    .build());
        }
        catch (CriException e) {
            log.warn("Telling the runtime the pod CIDR failed: {}", e.getMessage());
            return;
        }
        podCidrs = cidrs;
    }

    /** @param known the runtime's health when it is known without asking the runtime */
    private void writeStatus(Node node, boolean force, Optional<RuntimeHealth> known) {
        Instant now = clock.instant();
        runtimeHealth = known.orElseGet(() -> runtimeProcessDown ? RUNTIME_DOWN : RuntimeHealth.check(runtime));
        List<NodeConditions.Desired> desired = desiredConditions(runtimeHealth);
        List<NodeCondition> current = node.getStatus() == null ? List.of() : node.getStatus().getConditions();
        String runtimeVersion = runtimeVersion();
        boolean infoChanged = node.getStatus() == null || node.getStatus().getNodeInfo() == null
                || !Objects.equals(node.getStatus().getNodeInfo().getContainerRuntimeVersion(), runtimeVersion)
                || !Objects.equals(node.getStatus().getNodeInfo().getKubeletVersion(), kubeletVersion)
                || node.getStatus().getCapacity() == null || !node.getStatus().getCapacity().equals(capacity());
        if (!force && !infoChanged && !NodeConditions.reportDue(desired, current, now)) {
            return;
        }
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("capacity", capacity());
        status.put("allocatable", allocatable());
        status.put("conditions", NodeConditions.build(desired, current, now));
        status.put("addresses", addresses());
        status.put("daemonEndpoints", Map.of("kubeletEndpoint", Map.of("Port", config.port())));
        status.put("nodeInfo", nodeInfo(runtimeVersion));
        status.put("images", images());
        String json = client.getKubernetesSerialization().asJson(Map.of("status", status));
        client.nodes().resource(node).subresource("status").patch(STRATEGIC_MERGE_PATCH, json);
        NodeConditions.readyTransition(desired, current).ifPresent(event -> {
            if (event.equals(NodeConditions.NODE_NOT_READY)) {
                log.info("Node {} became not ready: {}", config.nodeName(), runtimeHealth.message());
            }
            events.event(nodeReference(), EventRecorder.NORMAL, event,
                    "Node " + config.nodeName() + " status is now: " + event);
        });
    }

    /** Upstream's kubelet refers to its node by name, with the name as UID, so its events need no Node lookup. */
    private Node nodeReference() {
        return new NodeBuilder().withNewMetadata().withName(config.nodeName()).withUid(config.nodeName()).endMetadata()
                .build();
    }

    private List<NodeConditions.Desired> desiredConditions(RuntimeHealth health) {
        List<NodeConditions.Desired> desired = new ArrayList<>();
        PressureConditions configured = pressure;
        boolean memoryPressure = configured != null ? configured.memoryPressure()
                : HostResources.memoryAvailableBytes() < EVICTION_MEMORY_AVAILABLE;
        desired.add(memoryPressure
                ? new NodeConditions.Desired(NodeConditions.MEMORY_PRESSURE, "True", "KubeletHasInsufficientMemory",
                        "kubelet has insufficient memory available")
                : NodeConditions.HEALTHY.get(0));
        Path root = config.rootDirectory();
        long storage = HostResources.storageBytes(root);
        boolean diskPressure = configured != null ? configured.diskPressure() : storage > 0
                && HostResources.storageAvailableBytes(root) < storage * EVICTION_NODEFS_AVAILABLE;
        desired.add(diskPressure
                ? new NodeConditions.Desired(NodeConditions.DISK_PRESSURE, "True", "KubeletHasDiskPressure",
                        "kubelet has disk pressure")
                : NodeConditions.HEALTHY.get(1));
        desired.add(NodeConditions.HEALTHY.get(2));
        desired.add(health.ready()
                ? NodeConditions.HEALTHY.get(3)
                : new NodeConditions.Desired(NodeConditions.READY, "False", "KubeletNotReady", health.message()));
        return desired;
    }

    private List<NodeAddress> addresses() {
        List<NodeAddress> addresses = new ArrayList<>();
        for (String ip : config.nodeIps()) {
            addresses.add(new NodeAddress(ip, "InternalIP"));
        }
        addresses.add(new NodeAddress(config.nodeName(), "Hostname"));
        return addresses;
    }

    private NodeSystemInfo nodeInfo(String runtimeVersion) {
        return new NodeSystemInfoBuilder()
                .withMachineID(HostResources.firstLine(Path.of("/etc/machine-id")))
                .withSystemUUID(HostResources.firstLine(Path.of("/sys/class/dmi/id/product_uuid")))
                .withBootID(HostResources.firstLine(Path.of("/proc/sys/kernel/random/boot_id")))
                .withKernelVersion(HostResources.firstLine(Path.of("/proc/sys/kernel/osrelease")))
                .withOsImage(HostResources.osImage())
                .withContainerRuntimeVersion(runtimeVersion)
                .withKubeletVersion(kubeletVersion)
                .withKubeProxyVersion("")
                .withOperatingSystem("linux")
                .withArchitecture("amd64")
                .build();
    }

    private String runtimeVersion() {
        try {
            io.k4j.kubelet.cri.v1.VersionResponse version = runtime.version(RuntimeService.API_VERSION);
            return version.getRuntimeName() + "://" + version.getRuntimeVersion();
        }
        catch (CriException e) {
            return "containerd://unknown";
        }
    }

    private List<ContainerImage> images() {
        List<Image> list;
        try {
            list = images.listImages(ImageFilter.getDefaultInstance());
        }
        catch (CriException e) {
            return List.of();
        }
        return list.stream()
                .sorted(Comparator.comparingLong(Image::getSize).reversed())
                .limit(MAX_IMAGES)
                .map(image -> {
                    List<String> names = new ArrayList<>(image.getRepoDigestsList());
                    names.addAll(image.getRepoTagsList());
                    return new ContainerImage(names.isEmpty() ? List.of(image.getId()) : names, image.getSize());
                })
                .toList();
    }

    private static long milli(Quantity quantity) {
        return quantity == null ? 0 : io.k4j.api.quantity.Quantity.parse(quantity.toString()).milliValue();
    }

    private static long bytes(Quantity quantity) {
        return quantity == null ? 0 : io.k4j.api.quantity.Quantity.parse(quantity.toString()).value();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
