package io.k4j.controllers.nodelifecycle;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.k4j.controllerkit.events.EventRecorder;
import io.k4j.controllerkit.informers.Lister;
import io.k4j.controllerkit.informers.PodIndexes;
import io.k4j.controllerkit.manager.Controller;
import io.k4j.controllerkit.manager.ControllerContext;
import io.k4j.controllerkit.workqueue.QueueWorkers;
import io.k4j.controllerkit.workqueue.WorkQueue;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches node heartbeats (Ready condition and the node's Lease in kube-node-lease) as upstream's node lifecycle
 * controller: a node silent for longer than the grace period gets its conditions set to Unknown, its pods marked not
 * ready, and the {@code unreachable} (or {@code not-ready}) NoExecute taint, added at a per-zone rate so that a zone
 * losing all its nodes at once is not evicted wholesale; the taint eviction controller then evicts pods that do not
 * tolerate it. It also keeps the NoSchedule taints in line with node conditions. Thread-safe.
 */
public final class NodeLifecycleController implements Controller {
    public static final String NAME = "node-lifecycle";
    public static final String SERVICE_ACCOUNT = "node-controller";
    static final String NODE_LEASE_NAMESPACE = "kube-node-lease";
    static final Duration NODE_MONITOR_PERIOD = Duration.ofSeconds(5);
    /** Upstream's {@code --node-monitor-grace-period} default since 1.29. */
    static final Duration NODE_MONITOR_GRACE_PERIOD = Duration.ofSeconds(50);
    static final Duration NODE_STARTUP_GRACE_PERIOD = Duration.ofSeconds(60);
    static final double NODE_EVICTION_RATE = 0.1;
    static final double SECONDARY_NODE_EVICTION_RATE = 0.01;
    static final int LARGE_CLUSTER_SIZE_THRESHOLD = 50;
    /** Settings keys (durations in seconds) so tests and small clusters can shorten the waits. */
    public static final String MONITOR_GRACE_SETTING = "node-monitor-grace-period-seconds";
    private static final Logger LOG = LoggerFactory.getLogger(NAME);
    private static final List<String> MONITORED_CONDITIONS = List.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure");

    private final Lister<Node> nodes;
    private final Lister<Lease> leases;
    private final Function<String, List<Pod>> podsOnNode;
    private final NodeWriter writer;
    private final EventRecorder events;
    private final InstantSource clock;
    private final Duration monitorGracePeriod;
    private final Map<String, NodeHealth> health = new ConcurrentHashMap<>();
    private final Map<String, RateLimitedTainter> tainters = new ConcurrentHashMap<>();
    private final Map<String, ZoneState> zoneStates = new ConcurrentHashMap<>();
    private final WorkQueue<String> noScheduleQueue = WorkQueue.withDefaultRateLimiter(NAME + "-noschedule");
    private final QueueWorkers<String> noScheduleWorkers = new QueueWorkers<>(noScheduleQueue, this::syncNoScheduleTaints);
    private final Set<String> podMarkingRetries = ConcurrentHashMap.newKeySet();
    private boolean allZonesDisrupted;
    private ScheduledExecutorService ticker;

    public NodeLifecycleController(ControllerContext context) {
        this(context.informers().lister(Node.class), context.informers().lister(Lease.class), podsOnNode(context),
                new ApiNodeWriter(context.clientFor(SERVICE_ACCOUNT)), context.eventRecorder("node-controller"), context.clock(),
                Duration.ofSeconds(Long.parseLong(context.settings().getOrDefault(MONITOR_GRACE_SETTING, String.valueOf(NODE_MONITOR_GRACE_PERIOD.toSeconds())))));
        context.informers().informer(Node.class).addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
                noScheduleQueue.add(node.getMetadata().getName());
            }

            @Override
            public void onUpdate(Node oldNode, Node newNode) {
                noScheduleQueue.add(newNode.getMetadata().getName());
            }

            @Override
            public void onDelete(Node node, boolean deletedFinalStateUnknown) {
                forget(node.getMetadata().getName());
            }
        });
    }

    NodeLifecycleController(Lister<Node> nodes, Lister<Lease> leases, Function<String, List<Pod>> podsOnNode, NodeWriter writer,
            EventRecorder events, InstantSource clock, Duration monitorGracePeriod) {
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.leases = requireNonNull(leases, "leases is null");
        this.podsOnNode = requireNonNull(podsOnNode, "podsOnNode is null");
        this.writer = requireNonNull(writer, "writer is null");
        this.events = requireNonNull(events, "events is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.monitorGracePeriod = requireNonNull(monitorGracePeriod, "monitorGracePeriod is null");
    }

    private static Function<String, List<Pod>> podsOnNode(ControllerContext context) {
        Lister<Pod> pods = PodIndexes.byNodeName(context.informers());
        return node -> pods.byIndex(PodIndexes.NODE_NAME, node);
    }

    @Override
    public void start(int workers) {
        noScheduleWorkers.start(workers);
        ticker = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(NAME + "-monitor").factory());
        ticker.scheduleWithFixedDelay(this::monitorSafely, 0, NODE_MONITOR_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        // Tainting runs more often than monitoring so the eviction rate, not the monitor period, sets the pace.
        ticker.scheduleWithFixedDelay(this::taintSafely, 100, 1000, TimeUnit.MILLISECONDS);
    }

    private void monitorSafely() {
        try {
            monitorNodeHealth();
        } catch (RuntimeException e) {
            LOG.warn("node health pass failed: {}", e.toString());
        }
    }

    private void taintSafely() {
        try {
            doNoExecuteTaintingPass();
        } catch (RuntimeException e) {
            LOG.warn("tainting pass failed: {}", e.toString());
        }
    }

    /** One pass over every node: heartbeats, conditions, taint queueing and zone states. */
    synchronized void monitorNodeHealth() {
        Instant now = clock.instant();
        Map<String, List<Boolean>> readinessByZone = new LinkedHashMap<>();
        Map<String, Integer> zoneSizes = new HashMap<>();
        for (Node node : nodes.list()) {
            String name = node.getMetadata().getName();
            String zone = zoneKey(node);
            tainters.computeIfAbsent(zone, key -> new RateLimitedTainter(NODE_EVICTION_RATE, now));
            zoneSizes.merge(zone, 1, Integer::sum);
            Optional<NodeCondition> observedReady = NodeTaints.condition(node, "Ready");
            Optional<NodeCondition> currentReady;
            try {
                currentReady = tryUpdateNodeHealth(node, now);
            } catch (RuntimeException e) {
                // One node the API refuses to update must not stop the others' health checks.
                LOG.warn("could not update the health of node {}: {}", name, e.getMessage());
                currentReady = observedReady;
            }
            readinessByZone.computeIfAbsent(zone, key -> new ArrayList<>())
                    .add(currentReady.map(condition -> "True".equals(condition.getStatus())).orElse(false));
            if (currentReady.isEmpty()) {
                continue;
            }
            processTaintBaseEviction(node, zone, currentReady.get().getStatus());
            boolean wasReady = observedReady.map(condition -> "True".equals(condition.getStatus())).orElse(false);
            // Only the transition this controller made (Ready -> Unknown) marks pods; a kubelet reporting NotReady
            // updates its pods itself. A failed marking is retried on the next pass, as upstream's nodesToRetry.
            if (!"True".equals(currentReady.get().getStatus()) && (wasReady || podMarkingRetries.contains(name))) {
                try {
                    markPodsNotReady(node, now);
                    podMarkingRetries.remove(name);
                } catch (RuntimeException e) {
                    podMarkingRetries.add(name);
                    LOG.warn("could not mark pods on node {} not ready: {}", name, e.getMessage());
                }
            }
        }
        handleDisruption(readinessByZone, zoneSizes, now);
    }

    /**
     * Refreshes the node's observed heartbeat (Ready condition or Lease renewal) and, when it is older than the grace
     * period by this controller's own clock, sets the monitored conditions to Unknown. Returns the Ready condition
     * as it now stands.
     */
    Optional<NodeCondition> tryUpdateNodeHealth(Node node, Instant now) {
        String name = node.getMetadata().getName();
        Optional<NodeCondition> ready = NodeTaints.condition(node, "Ready");
        Duration gracePeriod = ready.isPresent() ? monitorGracePeriod : NODE_STARTUP_GRACE_PERIOD;
        String heartbeat = ready.map(NodeCondition::getLastHeartbeatTime).orElse(null);
        Optional<ZonedDateTime> leaseRenew = leases.get(NODE_LEASE_NAMESPACE, name)
                .map(lease -> lease.getSpec() == null ? null : lease.getSpec().getRenewTime());
        NodeHealth previous = health.get(name);
        if (previous == null) {
            // A node never seen before gets a full grace period from now (upstream starts from its creation time
            // only when it never posted status; now is the kinder reading after a controller restart).
            NodeHealth fresh = new NodeHealth(now, heartbeat, leaseRenew.orElse(null));
            health.put(name, fresh);
            previous = fresh;
        } else {
            if (heartbeat != null && !heartbeat.equals(previous.heartbeat)) {
                previous.heartbeat = heartbeat;
                previous.probeTimestamp = now;
            }
            if (leaseRenew.isPresent() && leaseRenew.get() != null
                    && (previous.leaseRenewTime == null || leaseRenew.get().isAfter(previous.leaseRenewTime))) {
                previous.leaseRenewTime = leaseRenew.get();
                previous.probeTimestamp = now;
            }
        }
        if (!now.isAfter(previous.probeTimestamp.plus(gracePeriod))) {
            return ready;
        }
        List<NodeCondition> conditions = new ArrayList<>(node.getStatus() == null || node.getStatus().getConditions() == null
                ? List.of() : node.getStatus().getConditions());
        String timestamp = format(now);
        boolean changed = false;
        for (String type : MONITORED_CONDITIONS) {
            int index = indexOf(conditions, type);
            if (index < 0) {
                conditions.add(new NodeConditionBuilder().withType(type).withStatus("Unknown").withReason("NodeStatusNeverUpdated")
                        .withMessage("Kubelet never posted node status.").withLastHeartbeatTime(format(node.getMetadata().getCreationTimestamp() == null
                                ? now : Instant.parse(node.getMetadata().getCreationTimestamp())))
                        .withLastTransitionTime(timestamp).build());
                changed = true;
            } else if (!"Unknown".equals(conditions.get(index).getStatus())) {
                NodeCondition old = conditions.get(index);
                conditions.set(index, new NodeConditionBuilder(old).withStatus("Unknown").withReason("NodeStatusUnknown")
                        .withMessage("Kubelet stopped posting node status.").withLastTransitionTime(timestamp).build());
                changed = true;
            }
        }
        if (changed) {
            LOG.info("node {} hasn't been updated for {}s; marking its conditions Unknown", name, Duration.between(previous.probeTimestamp, now).toSeconds());
            writer.updateConditions(node, conditions);
            events.event(node, EventRecorder.NORMAL, "NodeNotReady", "Node " + name + " status is now: NodeNotReady");
        }
        return Optional.of(conditions.get(indexOf(conditions, "Ready")));
    }

    private void processTaintBaseEviction(Node node, String zone, String readyStatus) {
        String name = node.getMetadata().getName();
        RateLimitedTainter tainter = tainters.get(zone);
        switch (readyStatus) {
            case "False" -> {
                if (NodeTaints.has(node, NodeTaints.UNREACHABLE, NodeTaints.NO_EXECUTE)) {
                    swapNoExecuteTaint(name, NodeTaints.UNREACHABLE, NodeTaints.NOT_READY);
                } else if (!NodeTaints.has(node, NodeTaints.NOT_READY, NodeTaints.NO_EXECUTE)) {
                    tainter.add(name);
                }
            }
            case "Unknown" -> {
                if (NodeTaints.has(node, NodeTaints.NOT_READY, NodeTaints.NO_EXECUTE)) {
                    swapNoExecuteTaint(name, NodeTaints.NOT_READY, NodeTaints.UNREACHABLE);
                } else if (!NodeTaints.has(node, NodeTaints.UNREACHABLE, NodeTaints.NO_EXECUTE)) {
                    tainter.add(name);
                }
            }
            default -> {
                tainter.remove(name);
                if (hasNoExecuteTaint(node)) {
                    markNodeAsReachable(name);
                }
            }
        }
    }

    /** Applies NoExecute taints to the nodes each zone's rate lets through now. */
    synchronized void doNoExecuteTaintingPass() {
        Instant now = clock.instant();
        for (RateLimitedTainter tainter : tainters.values()) {
            for (String name : tainter.take(now)) {
                Optional<Node> node = nodes.get(name);
                Optional<String> ready = node.flatMap(found -> NodeTaints.condition(found, "Ready")).map(NodeCondition::getStatus);
                // The node may have recovered while it waited in the queue.
                if (ready.isEmpty() || "True".equals(ready.get())) {
                    continue;
                }
                String add = "False".equals(ready.get()) ? NodeTaints.NOT_READY : NodeTaints.UNREACHABLE;
                String remove = add.equals(NodeTaints.NOT_READY) ? NodeTaints.UNREACHABLE : NodeTaints.NOT_READY;
                try {
                    swapNoExecuteTaint(name, remove, add);
                    LOG.info("tainted node {} with {}:NoExecute", name, add);
                } catch (RuntimeException e) {
                    tainter.add(name);
                    throw e;
                }
            }
        }
    }

    private void swapNoExecuteTaint(String node, String removeKey, String addKey) {
        String now = format(clock.instant());
        writer.updateTaints(node, taints -> {
            List<Taint> result = new ArrayList<>();
            for (Taint taint : taints) {
                boolean removed = removeKey.equals(taint.getKey()) && NodeTaints.NO_EXECUTE.equals(taint.getEffect());
                if (!removed) {
                    result.add(taint);
                }
            }
            if (result.stream().noneMatch(taint -> addKey.equals(taint.getKey()) && NodeTaints.NO_EXECUTE.equals(taint.getEffect()))) {
                result.add(NodeTaints.taint(addKey, NodeTaints.NO_EXECUTE, now));
            }
            return result;
        });
    }

    private static boolean hasNoExecuteTaint(Node node) {
        return NodeTaints.has(node, NodeTaints.NOT_READY, NodeTaints.NO_EXECUTE) || NodeTaints.has(node, NodeTaints.UNREACHABLE, NodeTaints.NO_EXECUTE);
    }

    private void markNodeAsReachable(String node) {
        writer.updateTaints(node, taints -> taints.stream()
                .filter(taint -> !(NodeTaints.NO_EXECUTE.equals(taint.getEffect())
                        && (NodeTaints.NOT_READY.equals(taint.getKey()) || NodeTaints.UNREACHABLE.equals(taint.getKey()))))
                .toList());
        LOG.info("removed the NoExecute taints of node {}", node);
    }

    private void markPodsNotReady(Node node, Instant now) {
        String timestamp = format(now);
        for (Pod pod : podsOnNode.apply(node.getMetadata().getName())) {
            writer.markPodNotReady(pod, timestamp);
            events.event(pod, EventRecorder.WARNING, "NodeNotReady", "Node is not ready");
        }
    }

    /**
     * Sets each zone's tainting rate from its state; when every zone is fully disrupted the problem is most likely
     * this controller's view (e.g. the apiserver lost its nodes' traffic), so all eviction stops and taints go, as
     * upstream's "master disruption mode".
     */
    private void handleDisruption(Map<String, List<Boolean>> readinessByZone, Map<String, Integer> zoneSizes, Instant now) {
        Map<String, ZoneState> newStates = new HashMap<>();
        readinessByZone.forEach((zone, readiness) -> newStates.put(zone, ZoneState.of(readiness)));
        boolean allDisrupted = !newStates.isEmpty() && newStates.values().stream().allMatch(state -> state == ZoneState.FULL_DISRUPTION);
        if (allDisrupted && !allZonesDisrupted) {
            LOG.warn("all nodes are not ready; entering master disruption mode: no taints, no evictions");
            for (Node node : nodes.list()) {
                if (hasNoExecuteTaint(node)) {
                    markNodeAsReachable(node.getMetadata().getName());
                }
            }
            tainters.values().forEach(tainter -> tainter.swapRate(0));
        } else if (!allDisrupted && allZonesDisrupted) {
            LOG.info("some nodes are ready again; leaving master disruption mode");
            // Give every node a fresh grace period: the silence was most likely not theirs.
            health.values().forEach(entry -> entry.probeTimestamp = now);
        }
        if (!allDisrupted) {
            newStates.forEach((zone, state) -> {
                if (allZonesDisrupted || zoneStates.get(zone) != state) {
                    tainters.get(zone).swapRate(rateFor(state, zoneSizes.getOrDefault(zone, 0)));
                }
            });
        }
        zoneStates.clear();
        zoneStates.putAll(newStates);
        allZonesDisrupted = allDisrupted;
        tainters.keySet().retainAll(newStates.keySet());
    }

    static double rateFor(ZoneState state, int zoneSize) {
        return switch (state) {
            case NORMAL, FULL_DISRUPTION -> NODE_EVICTION_RATE;
            case PARTIAL_DISRUPTION -> zoneSize > LARGE_CLUSTER_SIZE_THRESHOLD ? SECONDARY_NODE_EVICTION_RATE : 0;
        };
    }

    /** Keeps NoSchedule taints in line with conditions and spec.unschedulable (upstream's doNoScheduleTaintingPass). */
    void syncNoScheduleTaints(String name) {
        Optional<Node> node = nodes.get(name);
        if (node.isEmpty()) {
            return;
        }
        Set<String> desired = NodeTaints.desiredNoScheduleKeys(node.get());
        if (NodeTaints.withNoScheduleKeys(NodeTaints.taints(node.get()), desired).equals(NodeTaints.taints(node.get()))) {
            return;
        }
        writer.updateTaints(name, taints -> NodeTaints.withNoScheduleKeys(taints, desired));
    }

    private void forget(String node) {
        health.remove(node);
        podMarkingRetries.remove(node);
        tainters.values().forEach(tainter -> tainter.remove(node));
    }

    /** Upstream's zone key: region and zone labels (either may be empty). */
    static String zoneKey(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        String region = labels.getOrDefault("topology.kubernetes.io/region", "");
        String zone = labels.getOrDefault("topology.kubernetes.io/zone", "");
        return region + ":\u0000:" + zone;
    }

    private static int indexOf(List<NodeCondition> conditions, String type) {
        for (int index = 0; index < conditions.size(); index++) {
            if (type.equals(conditions.get(index).getType())) {
                return index;
            }
        }
        return -1;
    }

    private static String format(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
        noScheduleWorkers.close();
    }

    /** What this controller last observed of a node's heartbeats, timed by its own clock. */
    private static final class NodeHealth {
        Instant probeTimestamp;
        String heartbeat;
        ZonedDateTime leaseRenewTime;

        NodeHealth(Instant probeTimestamp, String heartbeat, ZonedDateTime leaseRenewTime) {
            this.probeTimestamp = probeTimestamp;
            this.heartbeat = heartbeat;
            this.leaseRenewTime = leaseRenewTime;
        }
    }
}
