package io.k4j.scheduler.queue;

import static java.util.Objects.requireNonNull;

import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.scheduler.framework.ClusterEvent;
import io.k4j.scheduler.framework.Framework;
import io.k4j.scheduler.framework.PodInfo;
import io.k4j.scheduler.framework.PodNominator;
import io.k4j.scheduler.framework.QueuedPodInfo;
import io.k4j.scheduler.framework.Status;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Upstream's priority queue of pods waiting to be scheduled, in three parts:
 * <ul>
 *   <li>activeQ, a heap ordered by the profiles' QueueSort plugin, which {@link #pop} takes from;</li>
 *   <li>backoffQ, pods that failed and wait out a per-pod exponential backoff (1 s doubling to 10 s) before they
 *       return to activeQ;</li>
 *   <li>unschedulable pods, parked until a cluster event that a plugin which rejected them registered for (a node
 *       added, a pod deleted, ...) moves them back, or until they have waited five minutes.</li>
 * </ul>
 * An event that arrives while a pod is being scheduled sends that pod to backoffQ instead of the unschedulable pods,
 * so that it is not parked on stale information. The queue also tracks nominated pods (see {@link PodNominator}).
 *
 * <p>Thread-safe: informer handlers, the scheduling thread and the flush timers share one lock.
 */
public final class SchedulingQueue implements PodNominator {
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
    public static final Duration DEFAULT_MAX_UNSCHEDULABLE_DURATION = Duration.ofMinutes(5);

    private final InstantSource clock;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration maxUnschedulableDuration;
    private final Map<String, Framework> frameworks;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final IndexedHeap<QueuedPodInfo> activeQ;
    private final IndexedHeap<QueuedPodInfo> backoffQ;
    private final Map<String, QueuedPodInfo> unschedulablePods = new HashMap<>();
    private final Map<String, List<PodInfo>> nominatedPods = new HashMap<>();
    private final Map<String, String> nominatedPodToNode = new HashMap<>();
    // Read without the lock by parallel filters: most cycles have no nominated pods at all.
    private volatile int nominatedCount;
    private long schedulingCycle;
    private long moveRequestCycle = -1;
    private boolean closed;

    /**
     * @param frameworks the profiles by schedulerName; their QueueSort plugins must agree (the first one orders)
     */
    public SchedulingQueue(InstantSource clock, Map<String, Framework> frameworks, Duration initialBackoff, Duration maxBackoff,
            Duration maxUnschedulableDuration) {
        this.clock = requireNonNull(clock, "clock is null");
        this.frameworks = Map.copyOf(frameworks);
        if (frameworks.isEmpty()) {
            throw new IllegalArgumentException("at least one profile is needed");
        }
        this.initialBackoff = requireNonNull(initialBackoff, "initialBackoff is null");
        this.maxBackoff = requireNonNull(maxBackoff, "maxBackoff is null");
        this.maxUnschedulableDuration = requireNonNull(maxUnschedulableDuration, "maxUnschedulableDuration is null");
        Comparator<QueuedPodInfo> order = frameworks.values().iterator().next().queueSortComparator();
        this.activeQ = new IndexedHeap<>(QueuedPodInfo::uid, order);
        this.backoffQ = new IndexedHeap<>(QueuedPodInfo::uid, Comparator.comparing(this::backoffExpiry));
    }

    public SchedulingQueue(InstantSource clock, Map<String, Framework> frameworks) {
        this(clock, frameworks, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, DEFAULT_MAX_UNSCHEDULABLE_DURATION);
    }

    /** Adds a new unscheduled pod. */
    public void add(PodInfo pod) {
        lock.lock();
        try {
            QueuedPodInfo queued = new QueuedPodInfo(pod, clock.instant());
            if (activeQ.contains(pod.uid()) || backoffQ.contains(pod.uid()) || unschedulablePods.containsKey(pod.uid())) {
                return;
            }
            moveToActiveQ(queued);
            addNominatedPodLocked(pod, "");
        } finally {
            lock.unlock();
        }
    }

    /** Puts a pod into activeQ unless a PreEnqueue plugin gates it; returns whether it went to activeQ. */
    private boolean moveToActiveQ(QueuedPodInfo queued) {
        Framework framework = frameworks.get(queued.podInfo().schedulerName());
        Status status = framework == null ? Status.SUCCESS : framework.runPreEnqueuePlugins(queued.podInfo());
        if (!status.isSuccess()) {
            queued.setGated(true, status.plugin());
            unschedulablePods.put(queued.uid(), queued);
            return false;
        }
        queued.setGated(false, "");
        unschedulablePods.remove(queued.uid());
        backoffQ.delete(queued.uid());
        activeQ.addOrUpdate(queued);
        notEmpty.signalAll();
        return true;
    }

    /**
     * Takes the next pod to schedule, blocking until one is available.
     *
     * @return the pod, or null when the queue was closed
     */
    public QueuedPodInfo pop() throws InterruptedException {
        lock.lock();
        try {
            while (activeQ.isEmpty()) {
                if (closed) {
                    return null;
                }
                notEmpty.await();
            }
            QueuedPodInfo queued = activeQ.poll();
            queued.incrementAttempts();
            schedulingCycle++;
            return queued;
        } finally {
            lock.unlock();
        }
    }

    /** Like {@link #pop} but gives up after the timeout, returning null. */
    public QueuedPodInfo pop(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long nanos = timeout.toNanos();
            while (activeQ.isEmpty()) {
                if (closed || nanos <= 0) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            QueuedPodInfo queued = activeQ.poll();
            queued.incrementAttempts();
            schedulingCycle++;
            return queued;
        } finally {
            lock.unlock();
        }
    }

    /** The number of the cycle of the last popped pod. */
    public long schedulingCycle() {
        lock.lock();
        try {
            return schedulingCycle;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns a pod that failed scheduling: to backoffQ when a move request came in since the pod's cycle started
     * (the failure may be stale) or when it failed with an error, else to the unschedulable pods.
     */
    public void addUnschedulableIfNotPresent(QueuedPodInfo queued, long podSchedulingCycle) {
        lock.lock();
        try {
            String uid = queued.uid();
            if (activeQ.contains(uid) || backoffQ.contains(uid) || unschedulablePods.containsKey(uid)) {
                return;
            }
            queued.setTimestamp(clock.instant());
            addNominatedPodLocked(queued.podInfo(), "");
            if (moveRequestCycle >= podSchedulingCycle || queued.unschedulablePlugins().isEmpty()) {
                backoffQ.addOrUpdate(queued);
            } else {
                unschedulablePods.put(uid, queued);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A pod that is not assigned changed. */
    public void update(PodInfo oldPod, PodInfo newPod) {
        lock.lock();
        try {
            String uid = newPod.uid();
            QueuedPodInfo queued = activeQ.get(uid);
            if (queued != null) {
                queued.setPodInfo(newPod);
                activeQ.addOrUpdate(queued);
                updateNominatedPodLocked(oldPod, newPod);
                return;
            }
            queued = backoffQ.get(uid);
            if (queued != null) {
                queued.setPodInfo(newPod);
                backoffQ.addOrUpdate(queued);
                updateNominatedPodLocked(oldPod, newPod);
                return;
            }
            queued = unschedulablePods.get(uid);
            if (queued != null) {
                queued.setPodInfo(newPod);
                updateNominatedPodLocked(oldPod, newPod);
                if (oldPod == null || isPodUpdated(oldPod.pod(), newPod.pod())) {
                    if (!queued.gated() && isPodBackingOff(queued)) {
                        unschedulablePods.remove(uid);
                        backoffQ.addOrUpdate(queued);
                    } else {
                        moveToActiveQ(queued);
                    }
                }
                return;
            }
            // Not queued (for example in flight, or an update raced with a delete): treat it as new.
            if (!closed) {
                QueuedPodInfo fresh = new QueuedPodInfo(newPod, clock.instant());
                moveToActiveQ(fresh);
                addNominatedPodLocked(newPod, "");
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether a change can make a difference to scheduling: anything beyond status and bookkeeping metadata. */
    static boolean isPodUpdated(Pod oldPod, Pod newPod) {
        return !Objects.equals(oldPod.getSpec(), newPod.getSpec())
                || !Objects.equals(oldPod.getMetadata().getLabels(), newPod.getMetadata().getLabels())
                || !Objects.equals(oldPod.getMetadata().getAnnotations(), newPod.getMetadata().getAnnotations())
                || !Objects.equals(oldPod.getMetadata().getDeletionTimestamp(), newPod.getMetadata().getDeletionTimestamp());
    }

    /** An unassigned pod was deleted (or got assigned elsewhere). */
    public void delete(PodInfo pod) {
        lock.lock();
        try {
            deleteNominatedPodIfExistsLocked(pod);
            activeQ.delete(pod.uid());
            backoffQ.delete(pod.uid());
            unschedulablePods.remove(pod.uid());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Moves every unschedulable pod that the event may help back to activeQ (or backoffQ while it backs off), and
     * marks the current cycle so that in-flight pods that fail go to backoffQ.
     */
    public void moveAllToActiveOrBackoffQueue(ClusterEvent event) {
        moveAllToActiveOrBackoffQueue(event, pod -> true);
    }

    /** Like {@link #moveAllToActiveOrBackoffQueue(ClusterEvent)} but only for pods that pass {@code preCheck}. */
    public void moveAllToActiveOrBackoffQueue(ClusterEvent event, Predicate<PodInfo> preCheck) {
        lock.lock();
        try {
            List<QueuedPodInfo> toMove = new ArrayList<>();
            for (QueuedPodInfo queued : unschedulablePods.values()) {
                if (!queued.gated() && preCheck.test(queued.podInfo()) && isInterested(queued, event)) {
                    toMove.add(queued);
                }
            }
            movePodsLocked(toMove);
            moveRequestCycle = schedulingCycle;
        } finally {
            lock.unlock();
        }
    }

    /** A pod was bound: unschedulable pods with affinity may now fit. */
    public void assignedPodAdded(PodInfo pod) {
        moveAllToActiveOrBackoffQueue(ClusterEvent.ASSIGNED_POD_ADD, unschedulable -> unschedulable.hasAffinity()
                || (unschedulable.pod().getSpec().getTopologySpreadConstraints() != null
                        && !unschedulable.pod().getSpec().getTopologySpreadConstraints().isEmpty()));
    }

    private boolean isInterested(QueuedPodInfo queued, ClusterEvent event) {
        if (event.isWildcard() || queued.unschedulablePlugins().isEmpty()) {
            return true;
        }
        Framework framework = frameworks.get(queued.podInfo().schedulerName());
        if (framework == null) {
            return true;
        }
        Map<String, List<ClusterEvent>> registered = framework.eventsToRegister();
        for (String plugin : queued.unschedulablePlugins()) {
            List<ClusterEvent> events = registered.get(plugin);
            if (events == null) {
                return true;
            }
            for (ClusterEvent interest : events) {
                if (interest.matches(event)) {
                    return true;
                }
            }
        }
        return false;
    }

    private void movePodsLocked(List<QueuedPodInfo> pods) {
        for (QueuedPodInfo queued : pods) {
            if (isPodBackingOff(queued)) {
                unschedulablePods.remove(queued.uid());
                backoffQ.addOrUpdate(queued);
            } else {
                moveToActiveQ(queued);
            }
        }
    }

    /** Moves pods whose backoff ended from backoffQ to activeQ; run every second. */
    public void flushBackoffQCompleted() {
        lock.lock();
        try {
            Instant now = clock.instant();
            while (!backoffQ.isEmpty()) {
                QueuedPodInfo head = backoffQ.peek();
                if (backoffExpiry(head).isAfter(now)) {
                    return;
                }
                backoffQ.poll();
                moveToActiveQ(head);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Moves pods that have been unschedulable for longer than the limit back; run every 30 seconds. */
    public void flushUnschedulablePodsLeftover() {
        lock.lock();
        try {
            Instant now = clock.instant();
            List<QueuedPodInfo> toMove = new ArrayList<>();
            for (QueuedPodInfo queued : unschedulablePods.values()) {
                if (!queued.gated() && !now.isBefore(queued.timestamp().plus(maxUnschedulableDuration))) {
                    toMove.add(queued);
                }
            }
            movePodsLocked(toMove);
        } finally {
            lock.unlock();
        }
    }

    private boolean isPodBackingOff(QueuedPodInfo queued) {
        return backoffExpiry(queued).isAfter(clock.instant());
    }

    Instant backoffExpiry(QueuedPodInfo queued) {
        return queued.timestamp().plus(backoffDuration(queued.attempts()));
    }

    /** initialBackoff × 2^(attempts−1), at most maxBackoff. */
    Duration backoffDuration(int attempts) {
        Duration duration = initialBackoff;
        for (int i = 1; i < attempts; i++) {
            duration = duration.multipliedBy(2);
            if (duration.compareTo(maxBackoff) >= 0) {
                return maxBackoff;
            }
        }
        return duration.compareTo(maxBackoff) > 0 ? maxBackoff : duration;
    }

    /** Wakes {@link #pop} callers and makes them return null. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Sizes of the three sub-queues, for metrics and tests. */
    public record Sizes(int active, int backoff, int unschedulable) {}

    public Sizes sizes() {
        lock.lock();
        try {
            return new Sizes(activeQ.size(), backoffQ.size(), unschedulablePods.size());
        } finally {
            lock.unlock();
        }
    }

    /** Whether a pod is parked as unschedulable (gated or rejected). */
    public boolean isUnschedulable(String uid) {
        lock.lock();
        try {
            return unschedulablePods.containsKey(uid);
        } finally {
            lock.unlock();
        }
    }

    public boolean isInBackoff(String uid) {
        lock.lock();
        try {
            return backoffQ.contains(uid);
        } finally {
            lock.unlock();
        }
    }

    public boolean isActive(String uid) {
        lock.lock();
        try {
            return activeQ.contains(uid);
        } finally {
            lock.unlock();
        }
    }

    // --- nominator ---

    @Override
    public void addNominatedPod(PodInfo pod, String nodeName) {
        lock.lock();
        try {
            addNominatedPodLocked(pod, nodeName);
        } finally {
            lock.unlock();
        }
    }

    private void addNominatedPodLocked(PodInfo pod, String nodeName) {
        deleteNominatedPodIfExistsLocked(pod);
        String node = nodeName;
        if (node.isEmpty()) {
            node = pod.pod().getStatus() == null || pod.pod().getStatus().getNominatedNodeName() == null ? "" : pod.pod().getStatus().getNominatedNodeName();
        }
        if (node.isEmpty()) {
            return;
        }
        nominatedPodToNode.put(pod.uid(), node);
        nominatedPods.computeIfAbsent(node, ignored -> new ArrayList<>()).add(pod);
        nominatedCount = nominatedPodToNode.size();
    }

    private void updateNominatedPodLocked(PodInfo oldPod, PodInfo newPod) {
        // A pod that lost its nominated node in its status keeps the node the scheduler nominated it to until the
        // status update arrives, as upstream.
        String nodeName = "";
        String previous = nominatedPodToNode.get(newPod.uid());
        String newNominated = newPod.pod().getStatus() == null ? null : newPod.pod().getStatus().getNominatedNodeName();
        if (previous != null && (newNominated == null || newNominated.isEmpty())) {
            nodeName = previous;
        }
        addNominatedPodLocked(newPod, nodeName);
    }

    @Override
    public void deleteNominatedPodIfExists(PodInfo pod) {
        lock.lock();
        try {
            deleteNominatedPodIfExistsLocked(pod);
        } finally {
            lock.unlock();
        }
    }

    private void deleteNominatedPodIfExistsLocked(PodInfo pod) {
        String node = nominatedPodToNode.remove(pod.uid());
        if (node == null) {
            return;
        }
        nominatedCount = nominatedPodToNode.size();
        List<PodInfo> pods = nominatedPods.get(node);
        if (pods != null) {
            pods.removeIf(nominated -> nominated.uid().equals(pod.uid()));
            if (pods.isEmpty()) {
                nominatedPods.remove(node);
            }
        }
    }

    @Override
    public List<PodInfo> nominatedPodsForNode(String nodeName) {
        if (nominatedCount == 0) {
            return List.of();
        }
        lock.lock();
        try {
            if (nominatedPods.isEmpty()) {
                return List.of();
            }
            List<PodInfo> pods = nominatedPods.get(nodeName);
            return pods == null ? List.of() : List.copyOf(pods);
        } finally {
            lock.unlock();
        }
    }
}
