package io.k4j.kubelet.eviction;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Toleration;
import io.k4j.api.quantity.Quantity;
import io.k4j.kubelet.config.StaticPods;
import io.k4j.kubelet.kuberuntime.QosClasses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The kubelet's eviction manager for hard thresholds, as upstream's: every monitoring interval it observes the node's
 * signals, keeps the MemoryPressure/DiskPressure conditions (held for the pressure transition period after the last
 * threshold was met, so they do not flap), first reclaims node-level resources for disk signals (unused images),
 * and if a threshold is still met evicts one pod, ranked as {@link EvictionRanking}. Critical pods (static, mirror,
 * or of system-critical priority) are never evicted. Under pressure it also refuses new pods as upstream: every pod
 * under disk pressure, BestEffort pods that do not tolerate the memory-pressure taint under memory pressure.
 *
 * <p>Thread-safe; one thread runs the monitoring.
 */
public final class EvictionManager implements AutoCloseable {
    /** The reason of evicted pods, their events and refused pods. */
    public static final String REASON = "Evicted";
    /** Upstream's monitoring interval (housekeeping interval). */
    public static final Duration MONITORING_INTERVAL = Duration.ofSeconds(10);
    /** Upstream's default {@code --eviction-pressure-transition-period}. */
    public static final Duration PRESSURE_TRANSITION_PERIOD = Duration.ofMinutes(5);
    /** Upstream's grace period for hard evictions. */
    public static final Duration HARD_EVICTION_GRACE_PERIOD = Duration.ofSeconds(1);
    private static final int SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
    private static final String MEMORY_PRESSURE_TAINT = "node.kubernetes.io/memory-pressure";
    private static final Logger log = LoggerFactory.getLogger(EvictionManager.class);

    /** Stops an evicted pod and reports it. */
    @FunctionalInterface
    public interface PodEvictor {
        /** Marks the pod Failed with reason Evicted and this message, records the event and kills it. */
        void evict(Pod pod, String message, Duration gracePeriod);
    }

    /** Frees node-level resources before pods are evicted for a disk signal. */
    @FunctionalInterface
    public interface NodeReclaimer {
        /** Deletes what the node does not need (unused images); returns the bytes freed. */
        long reclaim(Signal signal);
    }

    private final List<Threshold> thresholds;
    private final SignalObserver observer;
    private final Supplier<Map<String, PodUsage>> usage;
    private final Supplier<List<Pod>> activePods;
    private final PodEvictor evictor;
    private final NodeReclaimer reclaimer;
    private final InstantSource clock;
    private final Duration transitionPeriod;
    private final Map<String, Instant> conditionLastMet = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("k4j-kubelet-eviction").factory());
    /** The pressure conditions in upstream's order (memory, then disk). */
    private volatile List<String> conditions = List.of();

    /**
     * @param usage the usage of every pod the runtime runs, by pod UID
     * @param activePods the pods that run and may be evicted (admitted, not terminated)
     */
    public EvictionManager(List<Threshold> thresholds, SignalObserver observer, Supplier<Map<String, PodUsage>> usage,
            Supplier<List<Pod>> activePods, PodEvictor evictor, NodeReclaimer reclaimer, InstantSource clock,
            Duration transitionPeriod) {
        this.thresholds = List.copyOf(thresholds);
        this.observer = requireNonNull(observer, "observer is null");
        this.usage = requireNonNull(usage, "usage is null");
        this.activePods = requireNonNull(activePods, "activePods is null");
        this.evictor = requireNonNull(evictor, "evictor is null");
        this.reclaimer = requireNonNull(reclaimer, "reclaimer is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.transitionPeriod = requireNonNull(transitionPeriod, "transitionPeriod is null");
    }

    public void start(Duration monitoringInterval) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                synchronize();
            }
            catch (RuntimeException e) {
                log.warn("Eviction manager: synchronizing failed: {}", e.toString());
            }
        }, 0, monitoringInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Whether the node reports MemoryPressure. */
    public boolean memoryPressure() {
        return conditions.contains(Signal.MEMORY_AVAILABLE.nodeCondition());
    }

    /** Whether the node reports DiskPressure. */
    public boolean diskPressure() {
        return conditions.contains(Signal.NODEFS_AVAILABLE.nodeCondition());
    }

    /** The hard thresholds in force. */
    public List<Threshold> thresholds() {
        return thresholds;
    }

    /**
     * Whether a new pod may run under the node's current conditions, as upstream's eviction admission.
     *
     * @return the rejection message, or empty to admit
     */
    public Optional<String> admit(Pod pod) {
        List<String> current = conditions;
        if (current.isEmpty() || isCritical(pod)) {
            return Optional.empty();
        }
        if (current.equals(List.of(Signal.MEMORY_AVAILABLE.nodeCondition()))) {
            if (!QosClasses.BEST_EFFORT.equals(QosClasses.of(pod)) || toleratesMemoryPressure(pod)) {
                return Optional.empty();
            }
        }
        return Optional.of("The node had condition: [" + String.join(" ", current) + "]. ");
    }

    /**
     * One monitoring pass: observes, updates the conditions, reclaims and evicts at most one pod.
     *
     * @return the evicted pod, if any
     */
    public Optional<Pod> synchronize() {
        Instant now = clock.instant();
        Map<Signal, Observation> observations = observer.observe();
        List<Threshold> met = met(observations);
        for (Threshold threshold : met) {
            conditionLastMet.put(threshold.signal().nodeCondition(), now);
        }
        List<String> newConditions = new ArrayList<>();
        for (String condition : List.of(Signal.MEMORY_AVAILABLE.nodeCondition(), Signal.NODEFS_AVAILABLE.nodeCondition())) {
            Instant lastMet = conditionLastMet.get(condition);
            if (lastMet != null && now.isBefore(lastMet.plus(transitionPeriod))) {
                newConditions.add(condition);
            }
        }
        if (!newConditions.equals(conditions)) {
            log.info("Eviction manager: node conditions now {}", newConditions);
        }
        conditions = List.copyOf(newConditions);
        if (met.isEmpty()) {
            return Optional.empty();
        }
        Threshold starved = met.getFirst();
        if (starved.signal() != Signal.MEMORY_AVAILABLE) {
            long freed = reclaimer.reclaim(starved.signal());
            if (freed > 0) {
                met = met(observer.observe());
                if (met.isEmpty()) {
                    log.info("Eviction manager: node-level reclaim freed {} bytes, no pod needs evicting", freed);
                    return Optional.empty();
                }
                starved = met.getFirst();
            }
        }
        String resource = starved.signal().resource();
        Map<String, PodUsage> podUsage = usage.get();
        List<Pod> candidates = activePods.get().stream().filter(pod -> !isCritical(pod)).toList();
        List<Pod> ranked = EvictionRanking.rank(candidates, podUsage, resource);
        if (ranked.isEmpty()) {
            log.debug("Eviction manager: threshold {} met, but there is no pod to evict", starved.signal().signalName());
            return Optional.empty();
        }
        Pod victim = ranked.getFirst();
        Observation observation = observations.get(starved.signal());
        String message = message(victim, resource, starved, observation, podUsage.get(victim.getMetadata().getUid()));
        log.info("Eviction manager: evicting pod {}/{}: {}", victim.getMetadata().getNamespace(),
                victim.getMetadata().getName(), message);
        evictor.evict(victim, message, HARD_EVICTION_GRACE_PERIOD);
        return Optional.of(victim);
    }

    /** The thresholds met, memory first (upstream reclaims the first of its sorted signals). */
    private List<Threshold> met(Map<Signal, Observation> observations) {
        List<Threshold> met = new ArrayList<>();
        for (Threshold threshold : thresholds) {
            Observation observation = observations.get(threshold.signal());
            if (observation != null && threshold.isMet(observation.available(), observation.capacity())) {
                met.add(threshold);
            }
        }
        met.sort(java.util.Comparator.comparing(Threshold::signal));
        return met;
    }

    /** Upstream's eviction message: the resource, the threshold and what was available, the offending containers. */
    static String message(Pod pod, String resource, Threshold threshold, Observation observation, PodUsage usage) {
        StringBuilder message = new StringBuilder("The node was low on resource: ").append(resource).append(". ");
        if (observation != null) {
            message.append("Threshold quantity: ").append(threshold.quantity(observation.capacity()))
                    .append(", available: ").append(Quantity.of(observation.available(), Quantity.Format.BINARY_SI))
                    .append(". ");
        }
        if (usage == null || resource.equals("inodes")) {
            return message.toString();
        }
        for (Container container : pod.getSpec().getContainers()) {
            PodUsage.ContainerUsage containerUsage = usage.containers().get(container.getName());
            if (containerUsage == null) {
                continue;
            }
            long used = PodUsage.of(containerUsage, resource);
            long request = EvictionRanking.containerRequest(container, resource);
            if (used > request) {
                Quantity requested = container.getResources() != null && container.getResources().getRequests() != null
                        && container.getResources().getRequests().get(resource) != null
                        ? Quantity.parse(container.getResources().getRequests().get(resource).toString())
                        : Quantity.ZERO;
                message.append("Container ").append(container.getName()).append(" was using ")
                        .append(Quantity.of(used, Quantity.Format.BINARY_SI)).append(", request is ").append(requested)
                        .append(", has larger consumption of ").append(resource).append(". ");
            }
        }
        return message.toString();
    }

    /** Upstream's critical pods: static, mirror, or of system-critical priority. */
    public static boolean isCritical(Pod pod) {
        return StaticPods.isStaticPod(pod) || StaticPods.isMirrorPod(pod) || EvictionRanking.priority(pod) >= SYSTEM_CRITICAL_PRIORITY;
    }

    private static boolean toleratesMemoryPressure(Pod pod) {
        List<Toleration> tolerations = pod.getSpec() == null ? null : pod.getSpec().getTolerations();
        if (tolerations == null) {
            return false;
        }
        for (Toleration toleration : tolerations) {
            boolean effect = toleration.getEffect() == null || toleration.getEffect().isEmpty()
                    || toleration.getEffect().equals("NoSchedule");
            boolean key = toleration.getKey() == null || toleration.getKey().isEmpty()
                    ? "Exists".equals(toleration.getOperator())
                    : toleration.getKey().equals(MEMORY_PRESSURE_TAINT)
                            && ("Exists".equals(toleration.getOperator()) || toleration.getValue() == null
                                    || toleration.getValue().isEmpty());
            if (effect && key) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
