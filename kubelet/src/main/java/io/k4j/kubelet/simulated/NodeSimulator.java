package io.k4j.kubelet.simulated;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.k4j.api.codec.Json;
import io.k4j.controllerkit.requests.RawApi;
import io.k4j.kubelet.nodestatus.NodeConditions;
import io.k4j.kubelet.nodestatus.NodeHeartbeat;
import java.net.HttpURLConnection;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs simulated (KWOK-like) nodes through one API identity: every Node annotated
 * {@code kwok.x-k8s.io/node: fake} is kept alive (Lease renewed every 10 s, conditions written on change and every
 * 5 min, as the kubelet does) and the pods bound to it are moved through their lifecycle by {@link PodLifecycle}.
 * {@code initialNodes} such nodes are registered at start. One node informer and one pod informer (pods with a node
 * name) serve all nodes; heartbeats come from one ordered schedule on one thread; API calls run on virtual threads
 * with at most {@code maxConcurrentWrites} in flight, each pod handled by one task at a time with its newest state.
 * Thread-safe.
 */
public final class NodeSimulator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NodeSimulator.class);
    private static final Duration SYNC_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration POD_RETRY_DELAY = Duration.ofSeconds(1);
    /** Heartbeats due this close together go out together ({@link HeartbeatSchedule#pollDue}); early by up to this, a 40 s Lease does not mind. */
    private static final Duration HEARTBEAT_BATCH_WINDOW = Duration.ofMillis(100);
    private static final Duration CACHE_SYNC_POLL = Duration.ofMillis(50);
    private static final int REGISTRATION_ATTEMPTS_PER_LOG = 6;
    private static final String JSON = "application/json";
    private static final PatchContext STRATEGIC_MERGE_PATCH = PatchContext.of(PatchType.STRATEGIC_MERGE);

    private final KubernetesClient client;
    private final RawApi api;
    private final SimulatedNodeConfig config;
    private final int initialNodes;
    private final InstantSource clock;
    private final SimulatedNodeTemplate template;
    private final PodLifecycle lifecycle;
    private final PodIpAllocator podIps;
    private final CidrPool nodeAddresses;
    private final Semaphore writes;
    private final ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("k4j-node-simulator-", 0).factory());
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("k4j-node-simulator-timer").factory());

    /** The nodes this simulator runs, by name. */
    private final Map<String, SimulatedNode> nodes = new ConcurrentHashMap<>();
    /** The last Lease written per node (without managedFields), so a renewal is one update, not a read and an update. */
    private final Map<String, ObjectNode> leases = new ConcurrentHashMap<>();

    /** Pods that need a look, newest state each; a pod leaves once nothing is left to do for it. */
    private final Map<String, Pod> pendingPods = new ConcurrentHashMap<>();
    private final Set<String> dirtyPods = ConcurrentHashMap.newKeySet();
    private final Set<String> podsInFlight = ConcurrentHashMap.newKeySet();
    /** The resourceVersion of our last write per pod, so an older event seen afterwards does not undo it. */
    private final Map<String, Long> writtenVersions = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> podTimers = new ConcurrentHashMap<>();

    private final ReentrantLock heartbeatLock = new ReentrantLock();
    private final Condition heartbeatsChanged = heartbeatLock.newCondition();
    private final HeartbeatSchedule heartbeats = new HeartbeatSchedule(NodeHeartbeat.LEASE_RENEW_INTERVAL, HEARTBEAT_BATCH_WINDOW);
    private final Thread heartbeatThread = Thread.ofPlatform().daemon().name("k4j-node-simulator-heartbeats").unstarted(this::runHeartbeats);

    private volatile boolean nodesSynced;
    private volatile boolean podsSynced;
    private volatile boolean closed;
    private SharedIndexInformer<Node> nodeInformer;
    private SharedIndexInformer<Pod> podInformer;

    /**
     * What the simulator knows of one node.
     *
     * @param podCidr {@code spec.podCIDR}, empty until node IPAM sets it
     */
    private record SimulatedNode(String name, String uid, String internalIp, Optional<String> podCidr, boolean stopped) {}

    /**
     * @param client the simulator's one API identity
     * @param clusterCidr where pod IPs of nodes without a podCIDR come from
     * @param initialNodes how many nodes ({@code <namePrefix>0} …) to register at start when missing
     */
    public NodeSimulator(KubernetesClient client, SimulatedNodeConfig config, String clusterCidr, int initialNodes, InstantSource clock) {
        this.client = requireNonNull(client, "client is null");
        this.api = new RawApi(client);
        this.config = requireNonNull(config, "config is null");
        if (initialNodes < 0) {
            throw new IllegalArgumentException("initialNodes must not be negative: " + initialNodes);
        }
        this.initialNodes = initialNodes;
        this.clock = requireNonNull(clock, "clock is null");
        this.template = new SimulatedNodeTemplate(config);
        this.lifecycle = new PodLifecycle(config.podRunDuration());
        this.podIps = new PodIpAllocator(clusterCidr);
        this.nodeAddresses = CidrPool.of(config.nodeAddressCidr(), 0);
        this.writes = new Semaphore(config.maxConcurrentWrites());
    }

    /** Starts the informers, registers the missing initial nodes and starts the heartbeats; returns once all run. */
    public void start() throws InterruptedException, ExecutionException, TimeoutException {
        heartbeatThread.start();
        nodeInformer = client.nodes().runnableInformer(0);
        nodeInformer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                onNode(node);
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                onNode(newNode);
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                forgetNode(node.getMetadata().getName());
            }
        });
        awaitListed(nodeInformer, "nodes");
        awaitNodesHandled();
        nodesSynced = true;
        // One list instead of a read per node before its first renewal (after a restart most Leases exist).
        try {
            for (JsonNode lease : api.get(SimulatedLeases.path("")).path("items")) {
                String name = lease.path("metadata").path("name").asText();
                if (nodes.containsKey(name)) {
                    leases.putIfAbsent(name, SimulatedLeases.dropManagedFields(lease));
                }
            }
        } catch (KubernetesClientException e) {
            LOG.warn("listing node Leases failed; each node reads its own before its first renewal: {}", e.getMessage());
        }
        registerInitialNodes();

        podInformer = client.pods().inAnyNamespace().withoutField("spec.nodeName", "").runnableInformer(0);
        podInformer.itemStore(new SkeletonPodStore(this::keepAddress));
        podInformer.removeNamespaceIndex();
        podInformer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                onPod(pod);
            }

            @Override
            public void onUpdate(Pod oldPod, Pod newPod) {
                onPod(newPod);
            }

            @Override
            public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
                forgetPod(pod);
            }
        });
        awaitListed(podInformer, "pods");
        podsSynced = true;
        pendingPods.keySet().forEach(this::dispatch);
        LOG.info("node simulator started: {} initial nodes requested, {} simulated nodes known so far", initialNodes, nodes.size());
    }

    /**
     * Starts an informer and waits until its first list is in the cache (client-go's {@code WaitForCacheSync} polls
     * the same way); the watch that follows may take longer to open and loses nothing meanwhile, as it starts at the
     * list's resourceVersion.
     */
    private static void awaitListed(SharedIndexInformer<?> informer, String what) throws InterruptedException, TimeoutException {
        informer.start().whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.warn("the node simulator's {} informer failed to start: {}", what, error.getMessage());
            }
        });
        pollUntil(informer::hasSynced, () -> "the node simulator's " + what + " informer did not list within " + SYNC_TIMEOUT);
    }

    /** Polls {@code done} every {@link #CACHE_SYNC_POLL} for up to {@link #SYNC_TIMEOUT}. */
    private static void pollUntil(BooleanSupplier done, Supplier<String> timeoutMessage) throws InterruptedException, TimeoutException {
        long deadline = System.nanoTime() + SYNC_TIMEOUT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException(timeoutMessage.get());
            }
            Thread.sleep(CACHE_SYNC_POLL.toMillis());
        }
    }

    /**
     * Waits until the handler has seen every simulated node the first list brought (fabric8 hands it the list once
     * cached whole, and it may lag). The pod informer must not start before: it would pass over the pods of nodes not
     * yet known, each such node would then list its pods again, and on a restart of thousands of nodes those LISTs
     * starved the heartbeats until nodes were taken for NotReady.
     */
    private void awaitNodesHandled() throws InterruptedException, TimeoutException {
        List<String> waiting = new ArrayList<>(nodeInformer.getStore().list().stream()
                .filter(NodeSimulator::simulated).map(node -> node.getMetadata().getName()).toList());
        // A node deleted meanwhile is not waited for.
        pollUntil(() -> {
            waiting.removeIf(name -> nodes.containsKey(name) || nodeInformer.getStore().getByKey(name) == null);
            return waiting.isEmpty();
        }, () -> "the node simulator did not take up node " + waiting.get(0) + " within " + SYNC_TIMEOUT);
    }

    private static boolean simulated(Node node) {
        Map<String, String> annotations = node.getMetadata().getAnnotations();
        return annotations != null && SimulatedAnnotations.MANAGED_NODE_VALUE.equals(annotations.get(SimulatedAnnotations.MANAGED_NODE));
    }

    private void registerInitialNodes() throws InterruptedException, ExecutionException {
        List<Future<?>> registrations = new ArrayList<>();
        Instant now = clock.instant();
        for (int index = 0; index < initialNodes; index++) {
            String name = template.nodeName(index);
            if (nodeInformer.getStore().getByKey(name) != null) {
                continue;
            }
            Node node = template.node(index, nodeAddresses.allocate(name), now);
            registrations.add(workers.submit(() -> {
                // A server busy registering thousands of nodes may time a create out or shed load; as upstream's
                // kubelet keeps trying to register, a transient failure is retried with a capped backoff for as long
                // as it lasts (a create that did land answers 409 next time). Other answers fail the start.
                for (int attempt = 1; ; attempt++) {
                    try {
                        withWritePermit(() -> {
                            try {
                                client.nodes().resource(node).create();
                                LOG.debug("registered simulated node {}", name);
                            } catch (KubernetesClientException e) {
                                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                                    throw e;
                                }
                            }
                        });
                        return null;
                    } catch (KubernetesClientException e) {
                        // No answer at all (a time-out: the client reports code 0 or -1), 408, 429 and 5xx are transient.
                        boolean transientFailure = e.getCode() <= 0 || e.getCode() == 408 || e.getCode() == 429 || e.getCode() >= 500;
                        if (!transientFailure) {
                            throw e;
                        }
                        if (attempt % REGISTRATION_ATTEMPTS_PER_LOG == 0) {
                            LOG.info("registering simulated node {} failed {} times ({}); still trying", name, attempt, e.getMessage());
                        }
                        Thread.sleep(200L << Math.min(attempt, 5));
                    }
                }
            }));
        }
        for (Future<?> registration : registrations) {
            registration.get();
        }
        if (!registrations.isEmpty()) {
            LOG.info("registered {} simulated nodes", registrations.size());
        }
    }

    // ---- nodes -------------------------------------------------------------------------------------------------

    private void onNode(Node node) {
        String name = node.getMetadata().getName();
        if (!simulated(node)) {
            forgetNode(name);
            return;
        }
        boolean stopped = "true".equals(node.getMetadata().getAnnotations().get(SimulatedAnnotations.STOPPED));
        Optional<String> podCidr = Optional.ofNullable(node.getSpec() == null ? null : node.getSpec().getPodCIDR()).filter(cidr -> !cidr.isEmpty());
        SimulatedNode simulated = new SimulatedNode(name, node.getMetadata().getUid(), internalIp(node), podCidr, stopped);
        SimulatedNode previous = nodes.put(name, simulated);
        if (stopped) {
            if (previous == null || !previous.stopped()) {
                LOG.info("simulated node {} is stopped ({}=true): no heartbeats, its pods are left as they are", name, SimulatedAnnotations.STOPPED);
            }
            withHeartbeats(() -> heartbeats.remove(name));
            return;
        }
        if (previous == null || previous.stopped()) {
            if (previous == null) {
                LOG.debug("running simulated node {}", name);
            } else {
                LOG.info("simulated node {} runs again", name);
            }
            Instant now = clock.instant();
            // Nodes found at start spread their heartbeats over the interval; a node that joins later beats at once.
            Instant due = nodesSynced ? now : now.plus(HeartbeatSchedule.spread(name, NodeHeartbeat.LEASE_RENEW_INTERVAL));
            withHeartbeats(() -> heartbeats.add(name, due));
            if (podsSynced) {
                // Pods bound to it while it was stopped (or before it was adopted) were not looked at.
                workers.execute(() -> resyncPods(name));
            }
        }
    }

    private String internalIp(Node node) {
        String name = node.getMetadata().getName();
        NodeStatus status = node.getStatus();
        if (status != null && status.getAddresses() != null) {
            for (NodeAddress address : status.getAddresses()) {
                if ("InternalIP".equals(address.getType()) && address.getAddress() != null && !address.getAddress().isEmpty()) {
                    nodeAddresses.reserve(name, address.getAddress());
                    return address.getAddress();
                }
            }
        }
        return nodeAddresses.allocate(name);
    }

    private void forgetNode(String name) {
        SimulatedNode removed = nodes.remove(name);
        if (removed == null) {
            return;
        }
        LOG.info("no longer running simulated node {}", name);
        withHeartbeats(() -> heartbeats.remove(name));
        leases.remove(name);
        podIps.forgetNode(name);
        nodeAddresses.release(name);
    }

    private void resyncPods(String nodeName) {
        try {
            List<Pod> pods = client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems();
            // Every running pod's address first: a pod that starts must not be given one of them.
            pods.forEach(this::keepAddress);
            pods.forEach(this::onPod);
        } catch (KubernetesClientException e) {
            LOG.warn("listing the pods of simulated node {} failed; they are looked at on their next change: {}", nodeName, e.getMessage());
        }
    }

    private void runHeartbeats() {
        while (!closed) {
            List<String> due;
            heartbeatLock.lock();
            try {
                Optional<Instant> next = heartbeats.nextDue();
                Instant now = clock.instant();
                if (next.isEmpty()) {
                    heartbeatsChanged.await();
                    continue;
                }
                if (next.get().isAfter(now)) {
                    heartbeatsChanged.awaitNanos(Duration.between(now, next.get()).toNanos());
                    continue;
                }
                due = heartbeats.pollDue(now);
            } catch (InterruptedException e) {
                return;
            } finally {
                heartbeatLock.unlock();
            }
            for (String name : due) {
                workers.execute(() -> heartbeat(name));
            }
        }
    }

    private void heartbeat(String name) {
        boolean succeeded = false;
        try {
            SimulatedNode node = nodes.get(name);
            if (node != null && !node.stopped()) {
                withWritePermit(() -> renewLease(node));
                Node current = nodeInformer.getStore().getByKey(name);
                if (current != null && statusReportDue(current)) {
                    withWritePermit(() -> writeNodeStatus(node, current));
                }
            }
            succeeded = true;
        } catch (KubernetesClientException e) {
            LOG.debug("heartbeat of simulated node {} failed: {}", name, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("heartbeat of simulated node {} failed", name, e);
        } finally {
            boolean ok = succeeded;
            withHeartbeats(() -> {
                if (ok) {
                    heartbeats.succeeded(name, clock.instant());
                } else {
                    heartbeats.failed(name, clock.instant());
                }
            });
        }
    }

    private void renewLease(SimulatedNode node) throws InterruptedException {
        Instant now = clock.instant();
        String nodeUid = node.uid() == null ? "" : node.uid();
        ObjectNode known = leases.get(node.name());
        if (known != null) {
            try {
                leases.put(node.name(), update(node.name(), SimulatedLeases.renewed(known, node.name(), nodeUid, now)));
                return;
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT && e.getCode() != HttpURLConnection.HTTP_NOT_FOUND) {
                    throw e;
                }
                // Someone else wrote it (or deleted it): go on from what the server holds.
                leases.remove(node.name(), known);
            }
        }
        // Leases that exist were listed at start, so a node without one most likely has none: create first.
        try {
            leases.put(node.name(), written(api.send("POST", SimulatedLeases.path(""), JSON, SimulatedLeases.newLease(node.name(), nodeUid, now))));
            return;
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
        ObjectNode current;
        try {
            current = written(api.get(SimulatedLeases.path(node.name())));
        } catch (KubernetesClientException e) {
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
                throw new KubernetesClientException("the Lease of " + node.name() + " exists and is gone again", HttpURLConnection.HTTP_CONFLICT, null);
            }
            throw e;
        }
        leases.put(node.name(), update(node.name(), SimulatedLeases.renewed(current, node.name(), nodeUid, now)));
    }

    /**
     * Writes {@code lease}, node {@code name}'s (a renewal of one the server answered with), and returns it with its new resourceVersion:
     * the server stores what it is sent, so only that is read of its answer.
     */
    private ObjectNode update(String name, ObjectNode lease) throws InterruptedException {
        String resourceVersion = api.writeForResourceVersion("PUT", SimulatedLeases.path(name), JSON, Json.writeString(lease));
        lease.withObjectProperty("metadata").put("resourceVersion", resourceVersion);
        return lease;
    }

    /** A Lease the server answered with, as the simulator keeps it: the answer is ours, so no copy. */
    private static ObjectNode written(JsonNode lease) {
        return SimulatedLeases.dropManagedFields(lease);
    }

    private boolean statusReportDue(Node node) {
        NodeStatus status = node.getStatus();
        if (status == null || status.getCapacity() == null || status.getCapacity().isEmpty() || status.getAddresses() == null
                || status.getAddresses().isEmpty() || status.getNodeInfo() == null || status.getNodeInfo().getKubeletVersion() == null
                || status.getNodeInfo().getKubeletVersion().isEmpty()) {
            return true;
        }
        return NodeConditions.reportDue(NodeConditions.HEALTHY, status.getConditions(), clock.instant());
    }

    private void writeNodeStatus(SimulatedNode node, Node current) {
        NodeStatus status = current.getStatus() == null ? new NodeStatus() : current.getStatus();
        Map<String, Object> patch = new LinkedHashMap<>();
        patch.put("conditions", NodeConditions.build(NodeConditions.HEALTHY, status.getConditions(), clock.instant()));
        if (status.getCapacity() == null || status.getCapacity().isEmpty()) {
            patch.put("capacity", template.capacity());
        }
        if (status.getAllocatable() == null || status.getAllocatable().isEmpty()) {
            patch.put("allocatable", status.getCapacity() == null || status.getCapacity().isEmpty() ? template.capacity() : status.getCapacity());
        }
        if (status.getAddresses() == null || status.getAddresses().isEmpty()) {
            patch.put("addresses", SimulatedNodeTemplate.addresses(node.name(), node.internalIp()));
        }
        if (status.getNodeInfo() == null || status.getNodeInfo().getKubeletVersion() == null || status.getNodeInfo().getKubeletVersion().isEmpty()) {
            patch.put("nodeInfo", template.nodeInfo(node.name()));
            patch.put("daemonEndpoints", Map.of("kubeletEndpoint", Map.of("Port", SimulatedNodeTemplate.KUBELET_PORT)));
        }
        String json = client.getKubernetesSerialization().asJson(Map.of("status", patch));
        client.nodes().resource(current).subresource("status").patch(STRATEGIC_MERGE_PATCH, json);
        LOG.debug("wrote the status of simulated node {}", node.name());
    }

    // ---- pods --------------------------------------------------------------------------------------------------

    private void onPod(Pod pod) {
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        SimulatedNode node = nodeName == null ? null : nodes.get(nodeName);
        if (node == null || node.stopped()) {
            return;
        }
        String key = SkeletonPodStore.key(pod);
        Long written = writtenVersions.get(key);
        if (written != null) {
            long version = resourceVersion(pod);
            if (version < written) {
                return;
            }
            writtenVersions.remove(key, written);
        }
        // Most events (a controller touching a running pod, a relist) need nothing: decide here, on the informer's
        // thread, and hand only pods with work to the writers. The address given to the pure decision is a
        // placeholder; a pod that starts gets its real one on the writer (and is known to start without a decision).
        if (!PodLifecycle.starts(pod) && lifecycle.decide(pod, node.internalIp(), ignored -> "", clock.instant()) instanceof PodAction.Nothing) {
            pendingPods.remove(key);
            cancelLook(key);
            return;
        }
        pendingPods.put(key, pod);
        // Until the first list is all cached (and with it every running pod's address kept), no pod may start and
        // take an address: start() dispatches the pods that wait.
        if (podsSynced) {
            dispatch(key);
        }
    }

    /**
     * Keeps the address a running pod shows, so that no pod that starts is given it: after a restart of the simulator
     * the pod runs on with it. Called as the informer caches each pod, before any handler sees it.
     */
    private void keepAddress(Pod pod) {
        String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        SimulatedNode node = nodeName == null ? null : nodes.get(nodeName);
        if (node != null && PodLifecycle.RUNNING.equals(PodLifecycle.phase(pod)) && pod.getStatus().getPodIP() != null) {
            podIps.reserve(nodeName, node.podCidr(), pod.getMetadata().getUid(), pod.getStatus().getPodIP());
        }
    }

    private void forgetPod(Pod pod) {
        String key = SkeletonPodStore.key(pod);
        pendingPods.remove(key);
        writtenVersions.remove(key);
        cancelLook(key);
        if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) {
            podIps.release(pod.getSpec().getNodeName(), pod.getMetadata().getUid());
        }
    }

    /** Runs the pod's task unless one runs already, in which case that one looks again when it is done. */
    private void dispatch(String key) {
        if (closed) {
            return;
        }
        dirtyPods.add(key);
        if (podsInFlight.add(key)) {
            workers.execute(() -> drain(key));
        }
    }

    private void drain(String key) {
        while (true) {
            if (!dirtyPods.remove(key)) {
                podsInFlight.remove(key);
                // A dispatch between the two lines above found the key in flight and left it to us.
                if (dirtyPods.contains(key) && podsInFlight.add(key)) {
                    continue;
                }
                return;
            }
            Pod pod = pendingPods.get(key);
            if (pod != null) {
                syncPod(key, pod);
            }
        }
    }

    private void syncPod(String key, Pod pod) {
        SimulatedNode node = nodes.get(pod.getSpec().getNodeName());
        if (node == null || node.stopped()) {
            pendingPods.remove(key, pod);
            return;
        }
        PodAction action = lifecycle.decide(pod, node.internalIp(),
                started -> podIps.allocate(node.name(), node.podCidr(), started.getMetadata().getUid()), clock.instant());
        try {
            switch (action) {
                case PodAction.Nothing nothing -> pendingPods.remove(key, pod);
                case PodAction.WaitUntil wait -> scheduleLook(key, Duration.between(clock.instant(), wait.time()));
                case PodAction.UpdateStatus update -> {
                    Pod updated = writePodStatus(pod, update.status());
                    LOG.debug("pod {} on {}: {}", key, node.name(), update.reason());
                    if (isTerminal(update.status())) {
                        podIps.release(node.name(), pod.getMetadata().getUid());
                    }
                    writtenVersions.put(key, resourceVersion(updated));
                    // Look again at what we wrote: a pod that runs may have to end later.
                    if (pendingPods.replace(key, pod, updated)) {
                        dirtyPods.add(key);
                    }
                }
                case PodAction.Delete delete -> {
                    // Events still on their way (our final status among them, which the watch may bring before the
                    // patch's response) must not delete the pod a second time; the informer's delete event clears
                    // this, and so does a failed write.
                    writtenVersions.put(key, Long.MAX_VALUE);
                    if (delete.finalStatus().isPresent()) {
                        writePodStatus(pod, delete.finalStatus().get());
                    }
                    deletePod(pod);
                    LOG.debug("pod {} on {}: deleted", key, node.name());
                    podIps.release(node.name(), pod.getMetadata().getUid());
                    pendingPods.remove(key, pod);
                }
            }
        } catch (KubernetesClientException e) {
            writtenVersions.remove(key, Long.MAX_VALUE);
            if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND || e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
                // Gone, or changed since we looked: the informer brings the newer state (or the deletion).
                pendingPods.remove(key, pod);
                return;
            }
            LOG.debug("pod {} on {}: write failed, retrying: {}", key, node.name(), e.getMessage());
            scheduleLook(key, POD_RETRY_DELAY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Pod writePodStatus(Pod pod, PodStatus status) throws InterruptedException {
        // A merge patch replaces the status lists whole; the uid and resourceVersion make it apply only to the pod
        // the decision was made from (a newer pod fails with 409 and is looked at when the informer brings it).
        Map<String, Object> metadata = Map.of("uid", pod.getMetadata().getUid(), "resourceVersion", pod.getMetadata().getResourceVersion());
        String patch = client.getKubernetesSerialization().asJson(Map.of("metadata", metadata, "status", status));
        String path = "/api/v1/namespaces/" + encode(pod.getMetadata().getNamespace()) + "/pods/" + encode(pod.getMetadata().getName()) + "/status";
        String[] resourceVersion = new String[1];
        withWritePermit(() -> resourceVersion[0] = api.writeForResourceVersion("PATCH", path, RawApi.MERGE_PATCH, patch));
        // The answer is the whole pod; only its new resourceVersion is read (a typed decoding of every answer cost as
        // much as the informer's own), and the pod looked at next is the one decided on with the status written.
        return PodLifecycle.withStatus(pod, status, resourceVersion[0]);
    }

    private void deletePod(Pod pod) throws InterruptedException {
        // As the kubelet's final delete: grace period 0, only the pod with this uid (not a new one of the same name).
        String path = "api/v1/namespaces/" + encode(pod.getMetadata().getNamespace()) + "/pods/" + encode(pod.getMetadata().getName());
        String url = client.getMasterUrl().toString().replaceAll("/+$", "") + "/" + path;
        Map<String, Object> options = Map.of("kind", "DeleteOptions", "apiVersion", "v1", "gracePeriodSeconds", 0,
                "preconditions", Map.of("uid", pod.getMetadata().getUid()));
        withWritePermit(() -> client.raw(url, "DELETE", options));
    }

    private void scheduleLook(String key, Duration delay) {
        Duration wait = delay.isNegative() ? Duration.ZERO : delay;
        ScheduledFuture<?> previous = podTimers.put(key, timer.schedule(() -> {
            podTimers.remove(key);
            dispatch(key);
        }, wait.toMillis(), TimeUnit.MILLISECONDS));
        if (previous != null) {
            previous.cancel(false);
        }
    }

    private void cancelLook(String key) {
        ScheduledFuture<?> timer = podTimers.remove(key);
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private static boolean isTerminal(PodStatus status) {
        return PodLifecycle.SUCCEEDED.equals(status.getPhase()) || PodLifecycle.FAILED.equals(status.getPhase());
    }

    private static long resourceVersion(Pod pod) {
        try {
            return Long.parseLong(pod.getMetadata().getResourceVersion());
        } catch (NumberFormatException | NullPointerException e) {
            return Long.MAX_VALUE;
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8);
    }

    // ---- plumbing ----------------------------------------------------------------------------------------------

    private interface Write {
        void run() throws InterruptedException;
    }

    private void withWritePermit(Write write) throws InterruptedException {
        writes.acquire();
        try {
            write.run();
        } finally {
            writes.release();
        }
    }

    private void withHeartbeats(Runnable change) {
        heartbeatLock.lock();
        try {
            Optional<Instant> before = heartbeats.nextDue();
            change.run();
            Optional<Instant> after = heartbeats.nextDue();
            // The heartbeat thread sleeps until the earliest due time, so it only needs waking when that came earlier: a
            // finished heartbeat, due again an interval later, no longer wakes it (500 times a second for 5,000 nodes).
            if (after.isPresent() && (before.isEmpty() || after.get().isBefore(before.get()))) {
                heartbeatsChanged.signalAll();
            }
        } finally {
            heartbeatLock.unlock();
        }
    }

    /** How many nodes the simulator runs now (stopped ones included). */
    public int nodeCount() {
        return nodes.size();
    }

    @Override
    public void close() {
        closed = true;
        heartbeatThread.interrupt();
        if (podInformer != null) {
            podInformer.close();
        }
        if (nodeInformer != null) {
            nodeInformer.close();
        }
        timer.shutdownNow();
        workers.shutdownNow();
    }
}
