package io.k4j.controllers.replicaset;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.k4j.controllerkit.pods.Pods;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which pods a shrinking replica set deletes first, as upstream's {@code getPodsToDelete} with
 * {@code ActivePodsWithRanks} (and the LogarithmicScaleDown and PodDeletionCost features, on by default):
 * <ol>
 *   <li>unassigned before assigned;</li>
 *   <li>Pending before Unknown before Running;</li>
 *   <li>not ready before ready;</li>
 *   <li>lower {@code controller.kubernetes.io/pod-deletion-cost} first;</li>
 *   <li>more related pods on the same node first (spreads what remains);</li>
 *   <li>ready for a shorter time first (compared on a log2 time scale, so near-equal ages are treated alike);</li>
 *   <li>more container restarts first;</li>
 *   <li>newer first (again on a log2 scale), then by UID.</li>
 * </ol>
 * Upstream breaks a tie of two times in one log2 bucket by UID at once, unless the times are exactly equal, when it goes
 * on to the next rule. That is no total order: Go's sort does not notice, Java's throws "Comparison method violates its
 * general contract!" (a replica set of 10,000 pods never shrank). Here a tie in a bucket goes on to the next rule and the
 * UID decides last; the order differs from upstream's only among pods ready within one bucket, which upstream orders by
 * UID, a random order, and this by restarts and age first.
 * Stateless and thread-safe.
 */
public final class PodDeletionOrder {
    /** Upstream's {@code core.PodDeletionCost} annotation. */
    public static final String POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";

    private PodDeletionOrder() {}

    /**
     * The {@code count} pods of {@code pods} to delete first.
     *
     * @param relatedPods the pods of this and its sibling replica sets, which rank co-location
     */
    public static List<Pod> podsToDelete(List<Pod> pods, List<Pod> relatedPods, int count, Instant now) {
        if (count >= pods.size()) {
            return List.copyOf(pods);
        }
        Map<String, Integer> podsOnNode = new HashMap<>();
        for (Pod related : relatedPods) {
            if (Pods.isActive(related)) {
                podsOnNode.merge(nodeName(related), 1, Integer::sum);
            }
        }
        List<Ranked> ranked = new ArrayList<>();
        for (Pod pod : pods) {
            ranked.add(new Ranked(pod, podsOnNode.getOrDefault(nodeName(pod), 0)));
        }
        ranked.sort(comparator(now));
        return ranked.subList(0, count).stream().map(Ranked::pod).toList();
    }

    /** A pod and the number of related active pods on its node. */
    record Ranked(Pod pod, int rank) {}

    /** Orders pods so that the first is the first to delete. */
    static Comparator<Ranked> comparator(Instant now) {
        return (left, right) -> compare(left, right, now);
    }

    private static int compare(Ranked left, Ranked right, Instant now) {
        Pod first = left.pod();
        Pod second = right.pod();
        String firstNode = nodeName(first);
        String secondNode = nodeName(second);
        if (!firstNode.equals(secondNode) && (firstNode.isEmpty() || secondNode.isEmpty())) {
            return firstNode.isEmpty() ? -1 : 1;
        }
        int phase = Integer.compare(phaseOrdinal(first), phaseOrdinal(second));
        if (phase != 0) {
            return phase;
        }
        boolean firstReady = Pods.isReady(first);
        boolean secondReady = Pods.isReady(second);
        if (firstReady != secondReady) {
            return firstReady ? 1 : -1;
        }
        int cost = Integer.compare(deletionCost(first), deletionCost(second));
        if (cost != 0) {
            return cost;
        }
        if (left.rank() != right.rank()) {
            return left.rank() > right.rank() ? -1 : 1;
        }
        if (firstReady && secondReady) {
            int byReadyTime = compareAges(readySince(first), readySince(second), now);
            if (byReadyTime != 0) {
                return byReadyTime;
            }
        }
        int restarts = compareRestarts(first, second);
        if (restarts != 0) {
            return restarts;
        }
        int byCreation = compareAges(created(first), created(second), now);
        if (byCreation != 0) {
            return byCreation;
        }
        return uid(first).compareTo(uid(second));
    }

    /** Empty time first, then the younger (a smaller log2 age) first; ages in one log2 bucket are alike. */
    private static int compareAges(Optional<Instant> first, Optional<Instant> second, Instant now) {
        if (first.isEmpty() || second.isEmpty()) {
            return Boolean.compare(first.isPresent(), second.isPresent());
        }
        return Long.compare(logarithmicRank(first.get(), now), logarithmicRank(second.get(), now));
    }

    /** log2 of the age in nanoseconds, -1 for a time not in the past (upstream's {@code logarithmicRankDiff}). */
    static long logarithmicRank(Instant time, Instant now) {
        Duration age = Duration.between(time, now);
        if (age.isNegative() || age.isZero()) {
            return -1;
        }
        double nanos = age.getSeconds() * 1e9 + age.getNano();
        return (long) (Math.log(nanos) / Math.log(2));
    }

    private static int compareRestarts(Pod first, Pod second) {
        int[] firstRestarts = maxRestarts(first);
        int[] secondRestarts = maxRestarts(second);
        if (firstRestarts[0] != secondRestarts[0]) {
            return firstRestarts[0] > secondRestarts[0] ? -1 : 1;
        }
        if (firstRestarts[1] != secondRestarts[1]) {
            return firstRestarts[1] > secondRestarts[1] ? -1 : 1;
        }
        return 0;
    }

    /** The most restarts of a regular container and of a sidecar (an init container that restarts always). */
    private static int[] maxRestarts(Pod pod) {
        int regular = 0;
        int sidecar = 0;
        if (pod.getStatus() != null) {
            if (pod.getStatus().getContainerStatuses() != null) {
                for (ContainerStatus status : pod.getStatus().getContainerStatuses()) {
                    regular = Math.max(regular, status.getRestartCount() == null ? 0 : status.getRestartCount());
                }
            }
            if (pod.getStatus().getInitContainerStatuses() != null && pod.getSpec() != null && pod.getSpec().getInitContainers() != null) {
                for (ContainerStatus status : pod.getStatus().getInitContainerStatuses()) {
                    boolean isSidecar = pod.getSpec().getInitContainers().stream()
                            .anyMatch(container -> container.getName().equals(status.getName()) && "Always".equals(container.getRestartPolicy()));
                    if (isSidecar) {
                        sidecar = Math.max(sidecar, status.getRestartCount() == null ? 0 : status.getRestartCount());
                    }
                }
            }
        }
        return new int[] {regular, sidecar};
    }

    private static int phaseOrdinal(Pod pod) {
        return switch (Pods.phase(pod)) {
            case "Pending" -> 0;
            case "Unknown" -> 1;
            case "Running" -> 2;
            default -> 3;
        };
    }

    /** The pod's deletion cost; missing or invalid counts as 0, as upstream. */
    static int deletionCost(Pod pod) {
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        String value = annotations == null ? null : annotations.get(POD_DELETION_COST);
        if (value == null) {
            return 0;
        }
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<Instant> readySince(Pod pod) {
        return Pods.condition(pod, "Ready")
                .filter(condition -> "True".equals(condition.getStatus()))
                .map(condition -> condition.getLastTransitionTime())
                .filter(time -> !time.isEmpty())
                .map(Instant::parse);
    }

    private static Optional<Instant> created(Pod pod) {
        String timestamp = pod.getMetadata().getCreationTimestamp();
        return timestamp == null || timestamp.isEmpty() ? Optional.empty() : Optional.of(Instant.parse(timestamp));
    }

    private static String nodeName(Pod pod) {
        return pod.getSpec() == null || pod.getSpec().getNodeName() == null ? "" : pod.getSpec().getNodeName();
    }

    private static String uid(Pod pod) {
        return pod.getMetadata().getUid() == null ? "" : pod.getMetadata().getUid();
    }
}
