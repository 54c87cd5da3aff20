package io.k4j.launcher;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.k4j.controllerkit.events.ApiEventRecorder;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.kubelet.Kubelet;
import io.k4j.kubelet.KubeletConfig;
import io.k4j.kubelet.containerd.ContainerdConfig;
import io.k4j.kubelet.containerd.ContainerdProcess;
import io.k4j.kubelet.cni.PodEgressMasquerade;
import io.k4j.kubelet.cri.CriConnection;
import io.k4j.kubelet.cri.CriTimeouts;
import io.k4j.kubelet.admission.ResourceAdmission;
import io.k4j.kubelet.cri.CriException;
import io.k4j.kubelet.cri.ImageService;
import io.k4j.kubelet.cri.RuntimeService;
import io.k4j.kubelet.cri.v1.ContainerFilter;
import io.k4j.kubelet.eviction.CriPodUsage;
import io.k4j.kubelet.eviction.EvictionManager;
import io.k4j.kubelet.eviction.HostSignalObserver;
import io.k4j.kubelet.images.ImageGarbageCollector;
import io.k4j.kubelet.env.KubeletContainerEnvironment;
import io.k4j.kubelet.kuberuntime.CriCommandRunner;
import io.k4j.kubelet.kuberuntime.ImageManager;
import io.k4j.kubelet.kuberuntime.KubeRuntimeManager;
import io.k4j.kubelet.lifecycle.KubeletHookRunner;
import io.k4j.kubelet.nodestatus.HostResources;
import io.k4j.kubelet.nodestatus.NodeStatusManager;
import io.k4j.kubelet.podobjects.ApiPodObjectSource;
import io.k4j.kubelet.prober.KubeletProbeManager;
import io.k4j.kubelet.server.KubeletServer;
import io.k4j.kubelet.volume.KubeletVolumeManager;
import io.k4j.kubelet.volume.SystemMounter;
import io.k4j.launcher.images.NodeRuntimeSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;

/**
 * The real node of {@code k4j server} and of {@code k4j agent}, as k3s's agent: prepares the node's runtime
 * surroundings (packages, local registry with the standard images, registry mirror hosts, CNI directories), starts and
 * supervises k4j's own containerd (unless {@code --container-runtime-endpoint} names one), then runs the kubelet as
 * {@code system:node:<name>} (its {@link NodeIdentity}) and its HTTPS server on {@code --kubelet-port} (10250), with
 * its housekeeping: static pods from {@code --pod-manifest-path}, the eviction manager ({@code --eviction-hard}) and
 * image garbage collection. Closing it stops the kubelet and containerd; the pods' containers keep running in their
 * shims and the next start adopts them. Coexists with the simulated nodes.
 */
final class KubeletComponent implements Component {
    private static final Logger log = LoggerFactory.getLogger(KubeletComponent.class);
    private static final Duration CONTAINERD_START_TIMEOUT = Duration.ofMinutes(1);
    /**
     * How often the static pod manifests are read. Upstream checks every 20 s and learns of changes at once through
     * inotify; reading a few small files every 2 s gives nearly the same reaction with one code path.
     */
    private static final Duration MANIFEST_CHECK_PERIOD = Duration.ofSeconds(2);

    private final NodeConfig config;
    private final NodeIdentity identity;
    private NodeRuntimeSetup setup;
    private ContainerdProcess containerd;
    private CriConnection connection;
    private Kubelet kubelet;
    private KubeletServer server;
    private EvictionManager evictionManager;
    private ImageGarbageCollector imageGarbageCollector;

    KubeletComponent(NodeConfig config, NodeIdentity identity) {
        this.config = requireNonNull(config, "config is null");
        this.identity = requireNonNull(identity, "identity is null");
    }

    @Override
    public String name() {
        return "kubelet";
    }

    @Override
    public void start() throws Exception {
        Path agentDirectory = config.directory();
        String nodeName = config.nodeName();
        InstantSource clock = InstantSource.system();
        setup = NodeRuntimeSetup.prepare(agentDirectory);
        String endpoint;
        if (config.containerRuntimeEndpoint().isPresent()) {
            endpoint = config.containerRuntimeEndpoint().get();
        }
        else {
            containerd = ContainerdProcess.start(new ContainerdConfig(ContainerdConfig.DEFAULT_BINARY,
                    agentDirectory.resolve("containerd"), setup.sandboxImage(), setup.cniPluginDirectory(),
                    setup.cniConfDirectory(), Optional.of(setup.registryConfigPath())), CONTAINERD_START_TIMEOUT);
            endpoint = containerd.endpoint();
        }
        connection = CriConnection.open(endpoint, CriTimeouts.DEFAULT);
        RuntimeService runtime = connection.runtimeService();

        List<InetAddress> addresses = config.addresses();
        if (config.clusterDns().isEmpty()) {
            log.info("kube-proxy does not run on this host's iptables: ClusterFirst pods use the host's resolv.conf");
        }
        KubeletConfig kubeletConfig = KubeletConfig.defaults(nodeName, agentDirectory.resolve("kubelet"),
                addresses.stream().map(InetAddress::getHostAddress).toList(), config.clusterDns())
                .withPort(config.kubeletPort())
                .withClusterDomain(config.clusterDomain());
        KubernetesClient nodeClient = identity.nodeClient();
        EventRecorder events = new ApiEventRecorder(nodeClient, "kubelet", nodeName, clock);
        ApiPodObjectSource objects = new ApiPodObjectSource(nodeClient);
        NodeStatusManager nodeStatus = new NodeStatusManager(nodeClient, kubeletConfig, runtime,
                connection.imageService(), this::writeCniConfig, Versions.KUBERNETES_VERSION, clock, events);
        if (containerd != null) {
            // The node reports NotReady as soon as its containerd died, and Ready as soon as it answers again.
            containerd.onReadinessChange(ready -> {
                if (ready) {
                    connection.reconnectNow();
                }
                nodeStatus.runtimeStateChanged(ready);
            });
        }
        CriCommandRunner commandRunner = new CriCommandRunner(runtime);
        KubeRuntimeManager runtimeManager = new KubeRuntimeManager(runtime,
                new ImageManager(connection.imageService(), objects, events, clock),
                new KubeletContainerEnvironment(objects, events, nodeStatus::allocatable),
                new KubeletHookRunner(commandRunner, events), events, clock, kubeletConfig,
                HostResources.memoryBytes());
        KubeletVolumeManager volumes = new KubeletVolumeManager(kubeletConfig.rootDirectory(), objects,
                new SystemMounter(), clock, nodeStatus::allocatable, kubeletConfig.clusterDomain(), Path.of("/etc/hosts"));
        kubelet = new Kubelet(nodeClient, kubeletConfig, runtimeManager, volumes,
                (states, listener) -> new KubeletProbeManager(commandRunner, states, listener, events, clock),
                nodeStatus, events, clock);
        Path manifestPath = config.podManifestPath().orElse(agentDirectory.resolve("pod-manifests"));
        if (config.podManifestPath().isEmpty()) {
            Files.createDirectories(manifestPath);
        }
        kubelet.addManifestSource(manifestPath, MANIFEST_CHECK_PERIOD);
        ImageService imageService = connection.imageService();
        imageGarbageCollector = new ImageGarbageCollector(imageService,
                () -> runtime.listContainers(ContainerFilter.getDefaultInstance()), setup.sandboxImage(),
                config.imageGcPolicy(), () -> imageFilesystem(imageService).map(path -> new ImageGarbageCollector
                        .FilesystemUsage(HostResources.storageBytes(path), HostResources.storageAvailableBytes(path))),
                clock);
        ImageGarbageCollector images = imageGarbageCollector;
        evictionManager = new EvictionManager(config.evictionHard(),
                new HostSignalObserver(kubeletConfig.rootDirectory(), () -> imageFilesystem(imageService)),
                new CriPodUsage(runtime), kubelet::activePods, kubelet::evictPod, signal -> images.deleteUnusedImages(),
                clock, EvictionManager.PRESSURE_TRANSITION_PERIOD);
        EvictionManager eviction = evictionManager;
        kubelet.addAdmissionCheck(pod -> eviction.admit(pod)
                .map(message -> new ResourceAdmission.Rejection(EvictionManager.REASON, message)));
        nodeStatus.setPressureConditions(new NodeStatusManager.PressureConditions() {
            @Override
            public boolean memoryPressure() {
                return eviction.memoryPressure();
            }

            @Override
            public boolean diskPressure() {
                return eviction.diskPressure();
            }
        });
        // The first pass decides the pressure conditions before the node registers and pods are admitted.
        evictionManager.synchronize();
        kubelet.start();
        evictionManager.start(EvictionManager.MONITORING_INTERVAL);
        imageGarbageCollector.start(ImageGarbageCollector.PERIOD);
        server = KubeletServers.start(identity, nodeName, kubeletConfig.port(), nodeClient, kubelet, runtime, clock);
        log.info("Node {} runs on {}", nodeName, endpoint);
    }

    /** Where the runtime keeps its images, as it reports it (CRI ImageFsInfo). */
    private static Optional<Path> imageFilesystem(ImageService images) {
        try {
            return images.imageFsInfo().getImageFilesystemsList().stream()
                    .map(usage -> usage.getFsId().getMountpoint())
                    .filter(mountpoint -> !mountpoint.isEmpty())
                    .map(Path::of)
                    .filter(Files::exists)
                    .findFirst();
        }
        catch (CriException e) {
            return Optional.empty();
        }
    }

    private void writeCniConfig(List<String> podCidrs) {
        String podCidr = podCidrs.get(0);
        // The node's masquerade rule goes in before the conflist: containerd networks no pod until that exists.
        boolean bridgeMasquerade = false;
        try {
            PodEgressMasquerade.onHost().ensure(podCidr);
        }
        catch (IOException e) {
            log.warn("Masquerading the egress of pod CIDR {} with one rule failed ({}); the bridge plugin masquerades each pod instead",
                    podCidr, e.getMessage());
            bridgeMasquerade = true;
        }
        try {
            setup.writeCniConfig(podCidr, config.cniBridge(), bridgeMasquerade);
        }
        catch (IOException e) {
            log.warn("Writing the CNI configuration for {} failed: {}", podCidrs, e.getMessage());
        }
    }

    @Override
    public void close() {
        if (server != null) {
            try {
                server.close();
            }
            catch (IOException e) {
                log.warn("Closing the kubelet server failed", e);
            }
        }
        if (evictionManager != null) {
            evictionManager.close();
        }
        if (imageGarbageCollector != null) {
            imageGarbageCollector.close();
        }
        if (kubelet != null) {
            kubelet.close();
        }
        if (connection != null) {
            connection.close();
        }
        if (containerd != null) {
            containerd.close();
        }
        if (setup != null) {
            setup.close();
        }
    }
}
